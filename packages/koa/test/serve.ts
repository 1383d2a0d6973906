import Router from '@koa/router';
import type { ContractApp, ContractFramework, ContractHandler } from '@tollgate/testing';
import Koa, { type Middleware } from 'koa';
import Koa2 from 'koa2';

/** Koa 2 and 3 share this shape: the contract's apps build on either. */
type KoaClass = typeof Koa;

function handle(handler: ContractHandler): Middleware {
  return async (ctx) => {
    const reply = await handler({ path: ctx.path, query: ctx.query, rateLimit: ctx.state.rateLimit });
    ctx.status = reply.status ?? 200;
    ctx.body = reply.body;
  };
}

/** Builds a contract app on Koa: `app.proxy` for a trusted proxy, app-level limiters, then the routes on @koa/router. */
function serveKoa(KoaApp: KoaClass, spec: ContractApp<Middleware>) {
  const app = new KoaApp({ proxy: spec.trustProxy ?? false });
  for (const limit of spec.use ?? []) app.use(limit);
  const router = new Router();
  for (const route of spec.routes) {
    const method = route.method === 'POST' ? 'post' : 'get';
    router[method](route.path, ...(route.limits ?? []), handle(route.handler));
  }
  app.use(router.routes() as Middleware);
  return app.callback();
}

/** Both majors the package supports, for the contract suites (app-level middleware: rate limits or adaptive concurrency). */
export const KOA_VERSIONS: ContractFramework<Middleware>[] = [
  { name: 'Koa 2', serve: (app) => serveKoa(Koa2, app) },
  { name: 'Koa 3', serve: (app) => serveKoa(Koa, app) },
];
