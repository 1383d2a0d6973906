import type { Context } from 'koa';

/**
 * Calls `untrustedProxy` for the first request naming its client in `X-Forwarded-For` or
 * `Forwarded` while the app is not told it stands behind a proxy (`app.proxy`), then never again;
 * undefined without one.
 */
export function proxyCheck(untrustedProxy: (() => void) | undefined): ((ctx: Context) => void) | undefined {
  if (untrustedProxy === undefined) return undefined;
  let warned = false;
  return (ctx) => {
    if (warned || ctx.app.proxy) return;
    const { headers } = ctx.req;
    if (headers['x-forwarded-for'] === undefined && headers.forwarded === undefined) return;
    warned = true;
    untrustedProxy();
  };
}
