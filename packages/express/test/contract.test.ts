import { createRuleSet, loadRuleSet, RedisStore, TollgateError } from '@tollgate/core';
import { describeHttpAdapter } from '@tollgate/testing';
import express5 from 'express';
import express4 from 'express4';
import { type RateLimitMiddleware, rateLimit } from '../src/index.js';
import { serveExpress } from './serve.js';

describeHttpAdapter<RateLimitMiddleware, RedisStore>({
  kit: { RedisStore, loadRuleSet, createRuleSet, TollgateError },
  rateLimit,
  frameworks: [
    { name: 'Express 4', serve: (app) => serveExpress(express4 as unknown as typeof express5, app) },
    { name: 'Express 5', serve: (app) => serveExpress(express5, app) },
  ],
});
