import { createRuleSet, loadRuleSet, RedisStore, TollgateError } from '@tollgate/core';
import { type ContractOptions, describeHttpAdapter, withContractRequests } from '@tollgate/testing';
import type { Context } from 'hono';
import { type HonoCallbacks, type RateLimitMiddleware, rateLimit } from '../src/index.js';
import { HONO_VERSIONS } from './serve.js';

/** The request as the contract's callbacks read it (`req.path`, `req.get()`): Hono's `c.get` reads variables, not headers. */
const contractRequest = (c: Context) => ({ path: c.req.path, get: (name: string) => c.req.header(name) });

describeHttpAdapter<RateLimitMiddleware, RedisStore>({
  kit: { RedisStore, loadRuleSet, createRuleSet, TollgateError },
  rateLimit: (options: ContractOptions) => rateLimit(withContractRequests(options, contractRequest) as never),
  frameworks: HONO_VERSIONS,
  tooManyHandler: (async (c, _next, rejection) => {
    await Promise.resolve();
    return c.json({ tooMany: true, retryAfterMs: c.get('rateLimit')?.retryAfterMs }, rejection.status as 429);
  }) satisfies HonoCallbacks['handler'],
  trustingProxy: { trustProxy: 'loopback' },
});
