import { hasRawField } from '@tollgate/core';
import type { Context } from 'hono';
import { nodeRequestOf } from './node-bindings.js';
import type { TrustProxy } from './options.js';

/**
 * Whether the request names its client in `X-Forwarded-For` or `Forwarded`. On `@hono/node-server`
 * the Node request's raw headers are read: `c.req.raw.headers` would make it build a whole
 * `Request` for every request.
 */
function namesClient(c: Context): boolean {
  const rawHeaders = nodeRequestOf(c)?.rawHeaders;
  if (rawHeaders === undefined) {
    const { headers } = c.req.raw;
    return headers.has('x-forwarded-for') || headers.has('forwarded');
  }
  return hasRawField(rawHeaders, 'x-forwarded-for') || hasRawField(rawHeaders, 'forwarded');
}

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
    if (warned || !namesClient(c)) return;
    warned = true;
    untrustedProxy();
  };
}
