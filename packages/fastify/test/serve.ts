import type { RequestListener } from 'node:http';
import {
  type ContractApp,
  type ContractFramework,
  type ContractHandler,
  type ContractLimiter,
  type ContractOptions,
  type ContractRoute,
  contractSpec,
} from '@tollgate/testing';
import Fastify5, { type FastifyInstance, type FastifyPluginAsync, type RouteHandlerMethod } from 'fastify';
import Fastify4 from 'fastify4';
import { type RateLimitHook, type RateLimitPluginOptions, rateLimit, rateLimitHook } from '../src/index.js';

/**
 * A contract limiter on Fastify: its options, which an app-level limiter registers the plugin
 * with, and the hook built from them, which a route takes as its `config.rateLimit`.
 */
export interface FastifyLimit {
  readonly options: ContractOptions;
  readonly hook: RateLimitHook;
  readonly limiter: ContractLimiter;
}

/** The contract's `rateLimit`: its callbacks see the contract's request (`req.path`, `req.get()`). */
export function contractRateLimit(options: ContractOptions): FastifyLimit {
  const spec = contractSpec(options);
  const hook = rateLimitHook(spec as never);
  return { options: spec, hook, limiter: hook.limiter };
}

function handle(handler: ContractHandler): RouteHandlerMethod {
  return async (request, reply) => {
    const path = new URL(request.url, 'http://localhost').pathname;
    const answer = await handler({ path, query: request.query as Record<string, unknown>, rateLimit: request.rateLimit });
    return reply.code(answer.status ?? 200).send(answer.body);
  };
}

type FastifyFactory = (options: { trustProxy: boolean }) => FastifyInstance;

/**
 * Builds a contract app on Fastify: the plugin registered once per app-level limiter (or with
 * `global: false` when there is none), each route's limiter as its `config.rateLimit`.
 */
async function build(factory: FastifyFactory, spec: ContractApp<FastifyLimit>): Promise<FastifyInstance> {
  const app = factory({ trustProxy: spec.trustProxy ?? false });
  const registrations: RateLimitPluginOptions[] = (spec.use ?? []).map((limit) => limit.options as RateLimitPluginOptions);
  for (const options of registrations.length > 0 ? registrations : [{ global: false }]) await app.register(rateLimit, options);
  for (const route of spec.routes) {
    const [own, ...more] = route.limits ?? [];
    if (more.length > 0) throw new Error('a Fastify route takes one config.rateLimit');
    app.route({
      method: route.method ?? 'GET',
      url: route.path,
      config: own === undefined ? {} : { rateLimit: own.hook },
      handler: handle(route.handler),
    });
  }
  await app.ready();
  return app;
}

/** The app's request listener: requests wait for it to be ready; an app that fails to start answers 500 with the error. */
function listenerOf(app: Promise<FastifyInstance>) {
  app.catch(() => {});
  return (req: Parameters<FastifyInstance['routing']>[0], res: Parameters<FastifyInstance['routing']>[1]) => {
    app.then(
      (ready) => ready.routing(req, res),
      (error: unknown) => {
        res.statusCode = 500;
        res.end(String(error));
      },
    );
  };
}

const serveFastify = (factory: FastifyFactory, spec: ContractApp<FastifyLimit>) => listenerOf(build(factory, spec));

/** Builds an app on Fastify with `plugin` (the adaptive concurrency one) registered app-wide, then `routes`. */
async function buildBehind(factory: FastifyFactory, plugin: FastifyPluginAsync, routes: ContractRoute<never>[]): Promise<FastifyInstance> {
  const app = factory({ trustProxy: false });
  await app.register(plugin);
  for (const route of routes) app.route({ method: route.method ?? 'GET', url: route.path, handler: handle(route.handler) });
  await app.ready();
  return app;
}

/** Both majors the package supports, for the contract suite. */
export const FASTIFY_VERSIONS: (ContractFramework<FastifyLimit> & {
  /** Serves `routes` with `plugin` registered app-wide (the adaptive contract). */
  serveBehind(plugin: FastifyPluginAsync, routes: ContractRoute<never>[]): RequestListener;
})[] = [
  {
    name: 'Fastify 4',
    serve: (app) => serveFastify(Fastify4 as unknown as FastifyFactory, app),
    serveBehind: (plugin, routes) => listenerOf(buildBehind(Fastify4 as unknown as FastifyFactory, plugin, routes)),
    problemContentType: 'application/problem+json; charset=utf-8',
  },
  {
    name: 'Fastify 5',
    serve: (app) => serveFastify(Fastify5 as unknown as FastifyFactory, app),
    serveBehind: (plugin, routes) => listenerOf(buildBehind(Fastify5 as unknown as FastifyFactory, plugin, routes)),
    problemContentType: 'application/problem+json; charset=utf-8',
  },
];
