/** What the check reads of an Express or a Fastify request. */
interface ForwardedRequest {
  headers?: Record<string, unknown>;
  /** Express: the app, whose `trust proxy` setting decides `req.ip`. */
  app?: { get?: (setting: string) => unknown };
  /** Fastify: the raw request; `ips` is defined only when `trustProxy` is set. */
  raw?: unknown;
}

/**
 * Whether the request names its client in `X-Forwarded-For` or `Forwarded` while its platform
 * trusts no proxy (Express's `trust proxy` unset; on Fastify, no `trustProxy`, which leaves the
 * request without `ips`): its address is then the proxy's.
 */
export function forwardedButUntrusted(req: unknown): boolean {
  const request = (req ?? {}) as ForwardedRequest;
  const headers = request.headers;
  if (headers === undefined || (headers['x-forwarded-for'] === undefined && headers.forwarded === undefined)) return false;
  if (typeof request.app?.get === 'function') return !request.app.get('trust proxy');
  return request.raw !== undefined && !('ips' in request);
}
