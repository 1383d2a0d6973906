import type { Context } from 'hono';
import type { TrustProxy } from './options.js';

/**
 * Calls `untrustedProxy` for the first request naming its client in `X-Forwarded-For` or
 * `Forwarded` while the middleware's `trustProxy` is unset or false, then never again; undefined
 * without one, or when a proxy is trusted.
 */
export function proxyCheck(
  untrustedProxy: (() => void) | undefined,
  trustProxy: TrustProxy | undefined,
): ((c: Context) => void) | undefined {
  if (untrustedProxy === undefined || (trustProxy !== undefined && trustProxy !== false)) return undefined;
  let warned = false;
  return (c) => {
    if (warned) return;
    const { headers } = c.req.raw;
    if (!headers.has('x-forwarded-for') && !headers.has('forwarded')) return;
    warned = true;
    untrustedProxy();
  };
}
