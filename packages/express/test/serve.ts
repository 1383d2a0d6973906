import type { RequestListener } from 'node:http';
import type { ContractApp, ContractFramework, ContractHandler } from '@tollgate/testing';
import type { RequestHandler } from 'express';
import express5 from 'express';
import express4 from 'express4';

/** Express 4 and 5 share this shape: the contract's apps build on either. */
type ExpressFactory = typeof express5;

function handle(handler: ContractHandler): RequestHandler {
  return async (req, res) => {
    const reply = await handler({ path: req.path, query: req.query, rateLimit: req.rateLimit });
    res.status(reply.status ?? 200);
    if (typeof reply.body === 'string') res.send(reply.body);
    else res.json(reply.body);
  };
}

/** Builds a contract app on Express: `trust proxy` for loopback proxies, app-level limiters, then the routes. */
function serveExpress(express: ExpressFactory, spec: ContractApp<RequestHandler>): RequestListener {
  const app = express();
  if (spec.trustProxy) app.set('trust proxy', 'loopback');
  for (const limit of spec.use ?? []) app.use(limit);
  for (const route of spec.routes) {
    const method = route.method === 'POST' ? 'post' : 'get';
    app[method](route.path, ...(route.limits ?? []), handle(route.handler));
  }
  return app;
}

/** Both majors the package supports, for the contract suites (app-level middleware: rate limits or adaptive concurrency). */
export const EXPRESS_VERSIONS: ContractFramework<RequestHandler>[] = [
  { name: 'Express 4', serve: (app) => serveExpress(express4, app) },
  { name: 'Express 5', serve: (app) => serveExpress(express5, app) },
];
