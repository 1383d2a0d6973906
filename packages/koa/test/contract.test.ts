import { createRuleSet, loadRuleSet, RedisStore, TollgateError } from '@tollgate/core';
import { describeHttpAdapter } from '@tollgate/testing';
import { type KoaCallbacks, type RateLimitMiddleware, rateLimit } from '../src/index.js';
import { KOA_VERSIONS } from './serve.js';

describeHttpAdapter<RateLimitMiddleware, RedisStore>({
  kit: { RedisStore, loadRuleSet, createRuleSet, TollgateError },
  rateLimit,
  frameworks: KOA_VERSIONS,
  tooManyHandler: (async (ctx, _next, rejection) => {
    await Promise.resolve();
    ctx.status = rejection.status;
    ctx.body = { tooMany: true, retryAfterMs: ctx.state.rateLimit?.retryAfterMs };
  }) satisfies KoaCallbacks['handler'],
});
