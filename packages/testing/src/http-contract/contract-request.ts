import type { ContractOptions } from './types.js';

/** What an Express and a Fastify request both carry (Nest on either platform, Fastify). */
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

/** Functions of the options that take something else than the request first. */
const NOT_OF_THE_REQUEST = new Set(['handler', 'clock']);

/** `fields` with each function of the request handed the contract's request instead. */
function withContractRequests(fields: ContractOptions): ContractOptions {
  const spec = { ...fields };
  for (const [name, callback] of Object.entries(fields)) {
    if (typeof callback !== 'function' || NOT_OF_THE_REQUEST.has(name)) continue;
    spec[name] = (req: PlatformRequest, ...rest: unknown[]) => callback(contractRequest(req), ...rest);
  }
  return spec;
}

/**
 * The contract's options with its callbacks (`key`, `skip`, `message`, a count or rate chosen per
 * request, in a limit of `limits` too) handed the contract's request: for an adapter whose
 * request has no `path` and `get()` of its own.
 */
export function contractSpec(options: ContractOptions): ContractOptions {
  const spec = withContractRequests(options);
  if (Array.isArray(options.limits)) spec.limits = options.limits.map((limit: ContractOptions) => withContractRequests(limit));
  return spec;
}
