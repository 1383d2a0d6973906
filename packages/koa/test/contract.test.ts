import { createRuleSet, loadRuleSet, RedisStore, TollgateError } from '@tollgate/core';
import { describeHttpAdapter } from '@tollgate/testing';
import Koa3 from 'koa';
import Koa2 from 'koa2';
import { type KoaCallbacks, type RateLimitMiddleware, rateLimit } from '../src/index.js';
import { serveKoa } from './serve.js';

describeHttpAdapter<RateLimitMiddleware, RedisStore>({
  kit: { RedisStore, loadRuleSet, createRuleSet, TollgateError },
  rateLimit,
  frameworks: [
    { name: 'Koa 2', serve: (app) => serveKoa(Koa2, app) },
    { name: 'Koa 3', serve: (app) => serveKoa(Koa3, app) },
  ],
  tooManyHandler: (async (ctx, _next, rejection) => {
    await Promise.resolve();
    ctx.status = rejection.status;
    ctx.body = { tooMany: true, retryAfterMs: ctx.state.rateLimit?.retryAfterMs };
  }) satisfies KoaCallbacks['handler'],
});
