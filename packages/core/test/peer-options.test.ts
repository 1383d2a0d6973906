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
