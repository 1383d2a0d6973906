import { getRequestListener } from '@hono/node-server';
import type { ContractApp, ContractFramework, ContractHandler } from '@tollgate/testing';
import { type Context, type Handler, Hono, type MiddlewareHandler } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';

/** The request as the contract's callbacks read it (`req.path`, `req.get()`): Hono's `c.get` reads variables, not headers. */
export const contractRequest = (c: Context) => ({ path: c.req.path, get: (name: string) => c.req.header(name) });

function handle(handler: ContractHandler): Handler {
  return async (c) => {
    const reply = await handler({ path: c.req.path, query: c.req.query(), rateLimit: c.get('rateLimit') });
    const status = (reply.status ?? 200) as ContentfulStatusCode;
    return typeof reply.body === 'string' ? c.text(reply.body, status) : c.json(reply.body, status);
  };
}

/**
 * Builds a contract app on Hono served by @hono/node-server: app-level limiters, then the routes.
 * Hono has no app-wide trust-proxy setting: the limiters of an app behind a proxy were given
 * `trustProxy` (the adapter's `trustingProxy`).
 */
function serveHono(spec: ContractApp<MiddlewareHandler>) {
  const app = new Hono();
  for (const limit of spec.use ?? []) app.use(limit);
  for (const route of spec.routes) {
    const handlers: (MiddlewareHandler | Handler)[] = [...(route.limits ?? []), handle(route.handler)];
    app.on(route.method ?? 'GET', route.path, ...(handlers as [Handler]));
  }
  return getRequestListener(app.fetch);
}

export const HONO_VERSIONS: ContractFramework<MiddlewareHandler>[] = [{ name: 'Hono 4', serve: serveHono }];
