import type { Logger } from '../logger.js';

/** Said once per middleware when a request names its client in a header the framework ignores. */
export const UNTRUSTED_PROXY_WARNING =
  'tollgate: a request carries X-Forwarded-For or Forwarded but the app trusts no proxy, so its client is taken to be the ' +
  "proxy's address and every client behind the proxy shares one budget. Tell the framework about the proxy " +
  "(Express: app.set('trust proxy', 1); Koa: new Koa({ proxy: true }); Fastify: { trustProxy: 1 }; Hono: rateLimit({ trustProxy: 1 })), " +
  'or set checkProxy: false when no proxy stands in front of the app.';

/**
 * What an adapter calls when a request carries `X-Forwarded-For` or `Forwarded` while its
 * framework trusts no proxy: warns once through `logger`. Undefined when `checkProxy` is false.
 */
export function untrustedProxyWarning(checkProxy: boolean, logger: Pick<Logger, 'warn'>): (() => void) | undefined {
  if (!checkProxy) return undefined;
  let warned = false;
  return () => {
    if (warned) return;
    warned = true;
    logger.warn(UNTRUSTED_PROXY_WARNING);
  };
}
