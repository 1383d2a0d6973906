import type { RequestListener } from 'node:http';
import { Controller, Get, type INestApplication, Post, Req, Res } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import {
  type ContractApp,
  type ContractFramework,
  type ContractLimiter,
  type ContractOptions,
  type ContractRoute,
  contractSpec,
} from '@tollgate/testing';
import {
  type HttpLimiter,
  RateLimit,
  RateLimitGuard,
  type RateLimitHandler,
  RateLimitModule,
  type RateLimitModuleOptions,
  RateLimitRegistry,
  type RateLimitSpec,
} from '../src/index.js';
import { type Platform, startApp } from './helpers/apps.js';

/**
 * A contract limiter on Nest: the rule a `@RateLimit()` (or, with `rules`, the module) takes.
 * Nest builds the limiter at boot; `limiter` answers once the app that uses the rule is up.
 */
export class NestLimit {
  readonly limiter: ContractLimiter;
  private bound!: (limiter: ContractLimiter) => void;

  constructor(readonly options: ContractOptions) {
    const resolved = new Promise<ContractLimiter>((resolve) => {
      this.bound = resolve;
    });
    this.limiter = {
      peek: async (key) => (await resolved).peek(key),
      consume: async (key) => (await resolved).consume(key),
      reset: async (key) => (await resolved).reset(key),
    };
  }

  bind(limiter: ContractLimiter): void {
    this.bound(limiter);
  }
}

/** The contract's `rateLimit`: a rule for a Nest route, its callbacks seeing the contract's request. */
export const rateLimit = (options: ContractOptions): NestLimit => new NestLimit(options);

const booted = new Set<INestApplication>();

/** Closes every app the contract booted. */
export async function closeApps(): Promise<void> {
  const apps = [...booted];
  booted.clear();
  await Promise.all(apps.map((app) => app.close()));
}

/** The store and clock a rule may not set on Nest: one value for the whole app, as the module's. */
function moduleOptionsOf(limits: readonly NestLimit[]): RateLimitModuleOptions {
  const shared: Record<string, unknown> = {};
  for (const limit of limits) {
    for (const name of ['store', 'clock'] as const) {
      const value = limit.options[name];
      if (value === undefined) continue;
      if (shared[name] !== undefined && shared[name] !== value) throw new Error(`the rules of one Nest app share one ${name}`);
      shared[name] = value;
    }
  }
  const ruleSet = limits.find((limit) => limit.options.rules !== undefined);
  return { ...shared, ...(ruleSet ? contractSpec(ruleSet.options) : {}) } as RateLimitModuleOptions;
}

/** The rules of a route, app-level ones first; app-level rules beside route-level ones fit one route only. */
function rulesOf(spec: ContractApp<NestLimit>, route: ContractRoute<NestLimit>): NestLimit[] {
  const appLevel = (spec.use ?? []).filter((limit) => limit.options.rules === undefined);
  if (appLevel.length > 0 && spec.routes.length > 1) throw new Error('app-level rules apply to single-route apps on Nest');
  return [...appLevel, ...(route.limits ?? [])];
}

const specOf = (limit: NestLimit): RateLimitSpec => {
  const { store: _store, clock: _clock, ...rule } = contractSpec(limit.options);
  return rule as RateLimitSpec;
};

type Send = (res: never, status: number, body: string | Record<string, unknown>) => void;

/** One controller with a handler per route, each with its `@RateLimit()` rules. */
function controllerOf(spec: ContractApp<NestLimit>, send: Send) {
  class ContractController {}
  const prototype = ContractController.prototype as unknown as Record<string, unknown>;
  spec.routes.forEach((route, i) => {
    const name = `route${i}`;
    const method = async (req: { url: string; query: Record<string, unknown>; rateLimit?: never }, res: never) => {
      const path = new URL(req.url, 'http://localhost').pathname;
      const reply = await route.handler({ path, query: req.query, rateLimit: req.rateLimit });
      send(res, reply.status ?? 200, reply.body);
    };
    Object.defineProperty(method, 'name', { value: name });
    Object.defineProperty(prototype, name, { value: method, writable: true, configurable: true });
    const descriptor = Object.getOwnPropertyDescriptor(prototype, name)!;
    Req()(prototype, name, 0);
    Res()(prototype, name, 1);
    (route.method === 'POST' ? Post : Get)(route.path)(prototype, name, descriptor);
    const rules = rulesOf(spec, route);
    if (rules.length > 0) RateLimit(rules.map(specOf))(prototype, name, descriptor);
  });
  Controller()(ContractController);
  return ContractController;
}

/** Boots the app with a global guard, then hands each rule the limiter Nest built for it. */
async function boot(
  platform: Platform,
  spec: ContractApp<NestLimit>,
  send: Send,
  configure?: (app: INestApplication) => void,
): Promise<INestApplication> {
  const limits = [...(spec.use ?? []), ...spec.routes.flatMap((route) => route.limits ?? [])];
  const controller = controllerOf(spec, send);
  const app = await startApp(
    platform,
    {
      imports: [RateLimitModule.forRoot(moduleOptionsOf(limits))],
      controllers: [controller],
      providers: [{ provide: APP_GUARD, useClass: RateLimitGuard }],
    },
    { trustProxy: spec.trustProxy ?? false, configure },
  );
  booted.add(app);
  const registry = app.get(RateLimitRegistry);
  const prototype = controller.prototype as unknown as Record<string, () => void>;
  spec.routes.forEach((route, i) => {
    const checked = registry.limitersFor(controller, prototype[`route${i}`]!);
    for (const [j, limit] of rulesOf(spec, route).entries()) limit.bind((checked[j] as HttpLimiter).limiter);
  });
  return app;
}

/** The app's request listener: requests wait for the boot; a boot that fails answers 500 with the error. */
function serveNest(
  platform: Platform,
  spec: ContractApp<NestLimit>,
  send: Send,
  configure?: (app: INestApplication) => void,
): RequestListener {
  const app = boot(platform, spec, send, configure);
  app.catch(() => {});
  return (req, res) => {
    app.then(
      (started) => started.getHttpServer().emit('request', req, res),
      (error: unknown) => {
        res.statusCode = 500;
        res.end(String(error));
      },
    );
  };
}

interface ExpressResponse {
  status(code: number): ExpressResponse;
  send(body: string): void;
  json(body: unknown): void;
}
interface FastifyReply {
  code(code: number): FastifyReply;
  send(body: unknown): void;
}

const sendExpress = (res: ExpressResponse, status: number, body: string | Record<string, unknown>) => {
  if (typeof body === 'string') res.status(status).send(body);
  else res.status(status).json(body);
};
const sendFastify = (reply: FastifyReply, status: number, body: string | Record<string, unknown>) => reply.code(status).send(body);

/** Nest on both platforms, the guard applied globally. */
export const NEST_PLATFORMS: (ContractFramework<NestLimit> & {
  /** Serves `routes` (no rules) with `middleware` applied app-wide by `app.use` (the adaptive contract). */
  serveBehind(middleware: unknown, routes: ContractRoute<NestLimit>[]): RequestListener;
})[] = [
  {
    name: 'Nest on Express',
    serve: (app) => serveNest('express', app, sendExpress as Send),
    serveBehind: (middleware, routes) => serveNest('express', { routes }, sendExpress as Send, (app) => app.use(middleware)),
  },
  {
    name: 'Nest on Fastify',
    serve: (app) => serveNest('fastify', app, sendFastify as Send),
    serveBehind: (middleware, routes) => serveNest('fastify', { routes }, sendFastify as Send, (app) => app.use(middleware)),
    problemContentType: 'application/problem+json; charset=utf-8',
  },
];

/** The contract's `tooManyHandler`: JSON through the platform's response, after an await. */
export const tooManyHandler: RateLimitHandler = async (req, res, verdict) => {
  await Promise.resolve();
  const body = { tooMany: true, retryAfterMs: req.rateLimit?.retryAfterMs };
  if (typeof res.code === 'function') (res as FastifyReply).code(verdict.status).send(body);
  else (res as ExpressResponse).status(verdict.status).json(body);
};
