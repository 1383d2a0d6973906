import { type ContractOptions, withContractRequests } from '@tollgate/testing';

/** What an Express and a Fastify request both carry. */
interface PlatformRequest {
  originalUrl?: string;
  url: string;
  headers: Record<string, string | string[] | undefined>;
}

/** The request as the contract's callbacks read it (`req.path`, `req.get()`), on either platform. */
function contractRequest(req: PlatformRequest) {
  return {
    path: new URL(req.originalUrl ?? req.url, 'http://localhost').pathname,
    get: (name: string) => {
      const value = req.headers[name.toLowerCase()];
      return Array.isArray(value) ? value.join(', ') : value;
    },
  };
}

/**
 * The contract's options with its callbacks (`key`, `skip`, `message`, a count or rate chosen per
 * request, in a limit of `limits` too) handed the contract's request.
 */
export function contractSpec(options: ContractOptions): ContractOptions {
  return withContractRequests(options, contractRequest);
}
