import { VirtualClock } from '@tollgate/testing';
import { describe, expect, it } from 'vitest';
import { createHttpLimiter, createRuleSet, type HttpRequestInfo } from '../../src/index.js';
import { errorOf } from '../helpers/error-of.js';

const request: HttpRequestInfo = { ip: '203.0.113.7', method: 'GET', path: '/', headers: {}, raw: {} };

describe("express-rate-limit's { windowMs, limit }", () => {
  it.each([
    ['limit', { windowMs: 60_000, limit: 3 }],
    ['max', { windowMs: 60_000, max: 3 }],
  ])('is a fixed window per client with %s', async (_field, rule) => {
    const clock = new VirtualClock();
    const http = createHttpLimiter({ ...rule, clock: clock.now });
    expect(http.limiter.limits.map((limit) => [limit.name, limit.algorithm.name, limit.params])).toEqual([
      ['default', 'fixed-window', { limit: 3, windowMs: 60_000 }],
    ]);
    const actions = [];
    for (let i = 0; i < 4; i++) actions.push((await http.check(request)).action);
    expect(actions).toEqual(['pass', 'pass', 'pass', 'reject']);
    clock.advance(60_000);
    expect((await http.check(request)).action).toBe('pass');
  });

  it.each([
    [{ windowMs: 1000 }, 'limit', /required with windowMs/],
    [{ windowMs: 1000, limit: 2, max: 2 }, 'max', /older name/],
    [{ windowMs: 1000, limit: 2, perMinute: 5 }, 'windowMs', /cannot be combined with perMinute/],
    [{ windowMs: 1000, algorithm: 'fixed-window', limit: 2, window: 1000 }, 'windowMs', /cannot be combined with algorithm/],
    [{ limit: 5 }, 'windowMs', /required with limit/],
    [{ max: 5 }, 'max', /use \{ windowMs, limit \}/],
  ])('refuses %o, naming %s', (options, field, message) => {
    const error = errorOf(() => createHttpLimiter(options as never));
    expect(error).toMatchObject({ code: 'ERR_TOLLGATE_INVALID_OPTION', field });
    expect(error.message).toMatch(message);
  });
});

describe('option names of other rate limiters', () => {
  it.each([
    ['standardHeaders', true, /use headers/],
    ['legacyHeaders', false, /use headers \('draft\+legacy' or 'legacy'/],
    ['keyGenerator', () => 'k', /use key/],
    ['passOnStoreError', true, /use onStoreError/],
    ['insuranceLimiter', {}, /onStoreError: \{ fallback/],
    ['storeClient', {}, /RedisStore\(\{ client \}\)/],
    ['getTracker', () => 'k', /use key/],
    ['identifier', 'api', /use name/],
    ['ttl', 60_000, /@nestjs\/throttler's/],
    ['points', 5, /rate-limiter-flexible's/],
    ['keyPrefix', 'rl', /use prefix/],
  ])('points from %s to the Tollgate option', (field, value, message) => {
    const error = errorOf(() => createHttpLimiter({ perMinute: 5, [field]: value } as never));
    expect(error).toMatchObject({ code: 'ERR_TOLLGATE_INVALID_OPTION', field });
    expect(error.message).toMatch(message);
  });

  it('points from them with a rule set too', () => {
    const rules = createRuleSet({ rules: [{ name: 'all', limit: { perMinute: 5 } }] });
    expect(errorOf(() => createHttpLimiter({ rules, standardHeaders: 'draft-7' } as never))).toMatchObject({ field: 'standardHeaders' });
  });

  it("refuses an express-rate-limit store, naming Tollgate's", () => {
    const foreignStore = { increment: () => ({ totalHits: 1 }), decrement: () => undefined, resetKey: () => undefined };
    const error = errorOf(() => createHttpLimiter({ windowMs: 1000, limit: 1, store: foreignStore } as never));
    expect(error).toMatchObject({ field: 'store' });
    expect(error.message).toMatch(/RedisStore/);
  });
});

describe('message and handler', () => {
  it('awaits an async message function', async () => {
    const clock = new VirtualClock();
    const http = createHttpLimiter({
      perMinute: 1,
      clock: clock.now,
      message: async (_req, decision) => ({ wait: decision.retryAfterMs }),
    });
    await http.check(request);
    const rejected = await http.check(request);
    expect(rejected).toMatchObject({ action: 'reject', contentType: 'application/json; charset=utf-8', body: '{"wait":60000}' });
  });

  it('refuses a handler that is not a function, naming it', () => {
    expect(errorOf(() => createHttpLimiter({ perMinute: 1, handler: 'nope' } as never))).toMatchObject({ field: 'handler' });
  });
});
