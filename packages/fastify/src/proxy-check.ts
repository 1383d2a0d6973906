import type { FastifyRequest } from 'fastify';

/**
 * Calls `untrustedProxy` for the first request naming its client in `X-Forwarded-For` or
 * `Forwarded` while its app trusts no proxy, then never again; undefined without one. Fastify
 * sets `request.ips` only with `trustProxy`; an app found trusting is not asked again (its
 * requests share one prototype), so its proxied requests never pay for `ips`.
 */
export function proxyCheck(untrustedProxy: (() => void) | undefined): ((request: FastifyRequest) => void) | undefined {
  if (untrustedProxy === undefined) return undefined;
  let warned = false;
  const trusting = new WeakSet<object>();
  return (request) => {
    if (warned) return;
    const { headers } = request;
    if (headers['x-forwarded-for'] === undefined && headers.forwarded === undefined) return;
    const shape = Object.getPrototypeOf(request) as object;
    if (trusting.has(shape)) return;
    if (request.ips !== undefined) {
      trusting.add(shape);
      return;
    }
    warned = true;
    untrustedProxy();
  };
}
