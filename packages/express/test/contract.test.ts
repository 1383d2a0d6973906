import { createRuleSet, loadRuleSet, RedisStore, TollgateError } from '@tollgate/core';
import { describeHttpAdapter } from '@tollgate/testing';
import express5 from 'express';
import express4 from 'express4';
import { type ExpressCallbacks, type RateLimitMiddleware, rateLimit } from '../src/index.js';
import { serveExpress } from './serve.js';

describeHttpAdapter<RateLimitMiddleware, RedisStore>({
  kit: { RedisStore, loadRuleSet, createRuleSet, TollgateError },
  rateLimit,
  frameworks: [
    { name: 'Express 4', serve: (app) => serveExpress(express4, app) },
    { name: 'Express 5', serve: (app) => serveExpress(express5, app) },
  ],
  tooManyHandler: (async (req, res, _next, rejection) => {
    await Promise.resolve();
    res.status(rejection.status).json({ tooMany: true, retryAfterMs: req.rateLimit?.retryAfterMs });
  }) satisfies ExpressCallbacks['handler'],
});
