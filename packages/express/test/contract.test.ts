import { createRuleSet, loadRuleSet, RedisStore, TollgateError } from '@tollgate/core';
import { describeHttpAdapter } from '@tollgate/testing';
import { type ExpressCallbacks, type RateLimitMiddleware, rateLimit } from '../src/index.js';
import { EXPRESS_VERSIONS } from './serve.js';

describeHttpAdapter<RateLimitMiddleware, RedisStore>({
  kit: { RedisStore, loadRuleSet, createRuleSet, TollgateError },
  rateLimit,
  frameworks: EXPRESS_VERSIONS,
  tooManyHandler: (async (req, res, _next, rejection) => {
    await Promise.resolve();
    res.status(rejection.status).json({ tooMany: true, retryAfterMs: req.rateLimit?.retryAfterMs });
  }) satisfies ExpressCallbacks['handler'],
});
