import type { ContractOptions } from '@tollgate/testing';

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

const CALLBACKS = ['key', 'skip', 'message'] as const;

/** The contract's options with its `key`, `skip` and `message` callbacks handed the contract's request. */
export function contractSpec(options: ContractOptions): ContractOptions {
  const spec = { ...options };
  for (const name of CALLBACKS) {
    const callback = options[name];
    if (typeof callback !== 'function') continue;
    spec[name] = (req: PlatformRequest, ...rest: unknown[]) => callback(contractRequest(req), ...rest);
  }
  return spec;
}
