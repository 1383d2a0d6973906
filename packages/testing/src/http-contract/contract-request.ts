import type { ContractOptions } from './types.js';

/** What the contract's callbacks read of a request: its path, and a header by name (`req.path`, `req.get()`). */
export interface ContractRequestView {
  path: string;
  get(name: string): string | undefined;
}

/** Functions of the options that take something else than the request first. */
const NOT_OF_THE_REQUEST = new Set(['handler', 'clock']);

function withViews(fields: ContractOptions, view: (req: never) => ContractRequestView): ContractOptions {
  const spec = { ...fields };
  for (const [name, callback] of Object.entries(fields)) {
    if (typeof callback !== 'function' || NOT_OF_THE_REQUEST.has(name)) continue;
    spec[name] = (req: never, ...rest: unknown[]) => callback(view(req), ...rest);
  }
  return spec;
}

/**
 * The contract's options with its callbacks (`key`, `skip`, `message`, a count or rate chosen per
 * request, in a limit of `limits` too) handed `view(req)` instead of the framework's request, for
 * an adapter whose request has no `path` and `get()` of its own (Nest on Fastify, Hono's context).
 */
export function withContractRequests<Request>(options: ContractOptions, view: (req: Request) => ContractRequestView): ContractOptions {
  const spec = withViews(options, view as (req: never) => ContractRequestView);
  if (Array.isArray(options.limits)) {
    spec.limits = options.limits.map((limit: ContractOptions) => withViews(limit, view as (req: never) => ContractRequestView));
  }
  return spec;
}

/** What an Express and a Fastify request both carry (Nest on either platform, Fastify). */
interface PlatformRequest {
  originalUrl?: string;
  url: string;
  headers: Record<string, string | string[] | undefined>;
}

/** The request as the contract's callbacks read it (`req.path`, `req.get()`), on either platform. */
function platformRequestView(req: PlatformRequest): ContractRequestView {
  return {
    path: new URL(req.originalUrl ?? req.url, 'http://localhost').pathname,
    get: (name: string) => {
      const value = req.headers[name.toLowerCase()];
      return Array.isArray(value) ? value.join(', ') : value;
    },
  };
}

/** The contract's options for an adapter handing callbacks an Express or Fastify request (Nest on either platform, Fastify). */
export function contractSpec(options: ContractOptions): ContractOptions {
  return withContractRequests(options, platformRequestView);
}
