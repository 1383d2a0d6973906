import { describe, expect, it } from 'vitest';
import { createHttpLimiter, createLimiter, MemoryStore } from '../src/index.js';
import { errorOf } from './helpers/error-of.js';

describe('options pasted from another rate limiter', () => {
  it.each([
    [
      { points: 5, duration: 60 },
      'points',
      /rate-limiter-flexible's: use \{ algorithm: 'fixed-window', limit: points, window: duration \* 1000 \}/,
    ],
    [{ perMinute: 5, insuranceLimiter: createLimiter({ perMinute: 5 }) }, 'insuranceLimiter', /use onStoreError: \{ fallback: limiter \}/],
    [{ perMinute: 5, keyPrefix: 'login' }, 'keyPrefix', /use prefix/],
    [{ perMinute: 5, execEvenly: true }, 'execEvenly', /mode: 'shaping'/],
    [{ perMinute: 5, blockDuration: 60 }, 'blockDuration', /is in milliseconds: for 60 seconds write '60s' or 60000/],
    [{ ttl: 60_000, limit: 5 }, 'ttl', /@nestjs\/throttler's: use \{ windowMs: ttl, limit \}/],
    [{ default: { ttl: 60_000, limit: 3 } }, 'default', /@nestjs\/throttler's named throttler: use \{ windowMs: 60000, limit: 3 \}/],
    [
      { default: { ttl: 10_000, limit: 2, blockDuration: 5000 } },
      'default',
      /@nestjs\/throttler's named throttler: use \{ windowMs: 10000, limit: 2, blockDuration: 5000 \}/,
    ],
  ])('createLimiter names the option and what to write (%#)', (options, field, message) => {
    const error = errorOf(() => createLimiter(options as never));
    expect(error).toMatchObject({ code: 'ERR_TOLLGATE_INVALID_OPTION', field });
    expect(error.message).toMatch(message);
    // A limiter in the value is cut short, never its whole Lua source.
    expect(error.message.length).toBeLessThan(400);
  });

  it.each([
    ['storeType', 'knex', /option of a database store: Tollgate stores in memory or Redis \(store: new RedisStore/],
    ['dbName', 'rate', /option of a database store/],
    ['tableName', 'limits', /option of a database store/],
    ['tableCreated', true, /option of a database store/],
    ['clearExpiredByTimeout', true, /option of a database store/],
    ['indexKeyPrefix', { a: 1 }, /option of a database store/],
    ['schema', {}, /option of a database store/],
    ['schemaName', 'public', /option of a database store/],
    ['disableIndexesCreation', true, /option of a database store/],
    ['dynamoTableOpts', { readCapacityUnits: 25 }, /option of a database store/],
    ['timeoutMs', 500, /use timeout \(ms; a store slower than that is answered by onStoreError\)/],
    ['rejectIfRedisNotReady', true, /use timeout and onStoreError/],
    ['rejectIfValkeyNotReady', true, /use timeout and onStoreError/],
    ['useRedisPackage', true, /RedisStore recognises the client/],
    ['useRedis3AndLowerPackage', true, /RedisStore recognises the client/],
    ['customFunctionLibName', 'mylib', /loads its own function library/],
    ['ttlSet', true, /option of a database store/],
    ['customIncrTtlLuaScript', 'return 1', /the Redis script is Tollgate's/],
    ['customFunction', 'return 1', /the Redis script is Tollgate's/],
    ['whiteList', ['127.0.0.1'], /use allowList \(client addresses and CIDRs\) or skip/],
    ['isWhiteListed', () => true, /use allowList/],
    ['blackList', ['10.0.0.1'], /keeps no deny list: refuse those keys before consume/],
    ['isBlackListed', () => true, /keeps no deny list/],
    ['runActionAnyway', true, /keeps no deny list/],
  ])("refuses rate-limiter-flexible's %s, in createLimiter and the HTTP limiter, naming what to use", (field, value, message) => {
    for (const build of [createLimiter, createHttpLimiter]) {
      const error = errorOf(() => build({ perMinute: 5, [field]: value } as never));
      expect(error).toMatchObject({ code: 'ERR_TOLLGATE_INVALID_OPTION', field });
      expect(error.message).toMatch(message);
    }
  });

  it("refuses express-rate-limit's identifier as a function, naming the limit's name", () => {
    const error = errorOf(() => createHttpLimiter({ perMinute: 5, identifier: () => 'plan' } as never));
    expect(error).toMatchObject({ code: 'ERR_TOLLGATE_INVALID_OPTION', field: 'identifier' });
    expect(error.message).toMatch(/use name on the limit \(a string: .*a function of the request is not supported\)/);
  });

  it("refuses @nestjs/throttler's blockDuration as a function: one duration per rule", () => {
    const error = errorOf(() => createLimiter({ perMinute: 5, blockDuration: (() => 60_000) as never }));
    expect(error).toMatchObject({ code: 'ERR_TOLLGATE_INVALID_OPTION', field: 'blockDuration' });
    expect(error.message).toMatch(
      /^blockDuration must be one duration, not a function \(@nestjs\/throttler's blockDuration of the context\)/,
    );
  });

  it("refuses @nestjs/throttler's list of throttlers, naming the rule it stands for", () => {
    const error = errorOf(() => createLimiter([{ ttl: 60_000, limit: 10 }] as never));
    expect(error.message).toMatch(
      /^options must be an object, not @nestjs\/throttler's list of throttlers: use \{ windowMs: 60000, limit: 10 \}/,
    );
  });

  it('refuses a window under 100 ms given as a number: a peer meant seconds', () => {
    const error = errorOf(() => createLimiter({ algorithm: 'fixed-window', limit: 5, window: 60 }));
    expect(error).toMatchObject({ code: 'ERR_TOLLGATE_INVALID_SPEC', field: 'spec.window' });
    expect(error.message).toMatch(/is in milliseconds: for 60 seconds write '60s' or 60000/);
    expect(createLimiter({ algorithm: 'fixed-window', limit: 5, window: '60ms' }).limits[0]!.params).toMatchObject({ windowMs: 60 });
    expect(createLimiter({ algorithm: 'sliding-window-log', limit: 5, window: 100 }).limits).toHaveLength(1);
  });
});

describe('headers', () => {
  it('refuses an unknown style, naming the closest valid one', () => {
    const error = errorOf(() => createHttpLimiter({ perMinute: 5, headers: 'Draft-7' as never }));
    expect(error).toMatchObject({ code: 'ERR_TOLLGATE_INVALID_OPTION', field: 'headers' });
    expect(error.message).toMatch(/did you mean 'draft-7'\?/);
    expect(errorOf(() => createHttpLimiter({ perMinute: 5, headers: true as never })).message).toMatch(/^headers must be 'draft', /);
  });
});

describe('MemoryStore', () => {
  it("has express-rate-limit's shutdown(), which leaves it working", async () => {
    const store = new MemoryStore();
    const limiter = createLimiter({ perMinute: 1, store });
    store.shutdown();
    expect((await limiter.consume('a')).allowed).toBe(true);
    expect((await limiter.consume('a')).allowed).toBe(false);
  });
});
