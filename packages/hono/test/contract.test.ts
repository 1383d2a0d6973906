import { createRuleSet, loadRuleSet, RedisStore, TollgateError } from '@tollgate/core';
import { type ContractOptions, describeHttpAdapter, withContractRequests } from '@tollgate/testing';
import { type HonoCallbacks, type RateLimitMiddleware, rateLimit } from '../src/index.js';
import { contractRequest, HONO_VERSIONS } from './serve.js';

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
