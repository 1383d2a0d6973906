import { VirtualClock } from '@tollgate/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLimiter, type Decision, type FallbackEvent, MemoryStore, type StoreErrorEvent, TollgateError } from '../../src/index.js';
import { ControlledStore } from '../helpers/controlled-store.js';

const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => unhandled.push(reason);
beforeEach(() => {
  unhandled.length = 0;
  process.on('unhandledRejection', onUnhandled);
});
afterEach(async () => {
  // Let any stray rejection surface before checking.
  await new Promise((resolve) => setTimeout(resolve, 20));
  process.off('unhandledRejection', onUnhandled);
  expect(unhandled).toEqual([]);
});

describe("onStoreError: 'open' (the default)", () => {
  it.each(['reject', 'throw'] as const)('allows when the store fails (%s), marked source policy', async (mode) => {
    const store = new ControlledStore();
    store.mode = mode;
    const limiter = createLimiter({ qps: 10, burst: 5, store, breaker: false });
    const decision = await limiter.consume('a');
    expect(decision).toMatchObject({ allowed: true, source: 'policy', limit: 5, remaining: 5, retryAfterMs: 0, delayMs: 0 });
  });

  it('answers a store that never replies within the timeout, and absorbs the late reply', async () => {
    const store = new ControlledStore();
    store.mode = 'hang';
    const limiter = createLimiter({ qps: 10, store, timeout: 50, breaker: false });
    const started = performance.now();
    const decisions = await Promise.all([limiter.consume('a'), limiter.consume('b')]);
    const elapsed = performance.now() - started;
    expect(decisions.map((d) => [d.allowed, d.source])).toEqual([
      [true, 'policy'],
      [true, 'policy'],
    ]);
    expect(elapsed).toBeGreaterThanOrEqual(45);
    expect(elapsed).toBeLessThan(500);
    store.failHung();
  });
});

describe("onStoreError: 'closed'", () => {
  it('denies with source policy, remaining 0 and a retry after the breaker cool-down', async () => {
    const store = new ControlledStore();
    store.mode = 'reject';
    const limiter = createLimiter({ qps: 10, burst: 5, store, onStoreError: 'closed', breaker: { coolDownMs: 2000 } });
    const decision = await limiter.consume('a');
    expect(decision).toMatchObject({ allowed: false, source: 'policy', remaining: 0, retryAfterMs: 2000, limit: 5 });
    expect(decision.limits).toEqual([
      {
        name: 'default',
        limit: 5,
        policy: { quota: 5, windowMs: 500, refillMs: 400 },
        allowed: false,
        remaining: 0,
        resetAfterMs: 0,
        retryAfterMs: 2000,
        delayMs: 0,
      },
    ]);
  });

  it('reports the time left until the next probe while the breaker is open', async () => {
    const clock = new VirtualClock();
    const store = new ControlledStore();
    store.mode = 'reject';
    const limiter = createLimiter({
      qps: 10,
      store,
      clock: clock.now,
      onStoreError: 'closed',
      breaker: { failureThreshold: 1, coolDownMs: 3000 },
    });
    await limiter.consume('a');
    clock.advance(1200);
    expect((await limiter.consume('a')).retryAfterMs).toBe(1800);
  });
});

describe('onStoreError: { fallback }', () => {
  it("builds the fallback from this instance's share of the rule", async () => {
    const store = new ControlledStore();
    store.mode = 'reject';
    const clock = new VirtualClock();
    const limiter = createLimiter({
      limits: [
        { qps: 40, burst: 20 },
        { algorithm: 'fixed-window', limit: 1000, window: '1h' },
      ],
      store,
      clock: clock.now,
      breaker: false,
      onStoreError: { fallback: { share: 1 / 4 } },
    });
    const decisions: Decision[] = [];
    for (let i = 0; i < 6; i++) decisions.push(await limiter.consume('a'));
    expect(decisions.map((d) => d.allowed)).toEqual([true, true, true, true, true, false]);
    expect(decisions.every((d) => d.source === 'fallback')).toBe(true);
    expect(decisions[0]!.limits.map((l) => l.limit)).toEqual([5, 250]);
    // 10 per second: one more passes 100 ms later.
    expect(decisions[5]!.retryAfterMs).toBe(100);
    clock.advance(100);
    expect((await limiter.consume('a')).allowed).toBe(true);
  });

  it("names the fallback's limits as the rule names them, given names and default names alike", async () => {
    const store = new ControlledStore();
    store.mode = 'reject';
    const options = { store, breaker: false as const, onStoreError: { fallback: { share: 1 / 2 } } };
    const multi = createLimiter({ limits: [{ qps: 100, burst: 10 }, { name: 'daily', perDay: 1000 }, { perSecond: 5 }], ...options });
    const decision = await multi.consume('a');
    expect(decision.source).toBe('fallback');
    expect(decision.limits.map((part) => part.name)).toEqual(['1s', 'daily', '1s-2']);
    const named = createLimiter({ name: 'login', perMinute: 10, ...options });
    expect((await named.consume('a')).limits.map((part) => [part.name, part.limit])).toEqual([['login', 5]]);
  });

  it('uses a fallback limiter given as is', async () => {
    const store = new ControlledStore();
    store.mode = 'reject';
    const fallback = createLimiter({ algorithm: 'fixed-window', limit: 1, window: '1m' });
    const limiter = createLimiter({ qps: 100, store, breaker: false, onStoreError: { fallback } });
    expect([(await limiter.consume('a')).allowed, (await limiter.consume('a')).allowed]).toEqual([true, false]);
    expect((await limiter.peek('a')).source).toBe('fallback');
  });

  it('returns to the store once it answers again', async () => {
    const store = new ControlledStore();
    store.mode = 'reject';
    const limiter = createLimiter({ qps: 100, store, breaker: false, onStoreError: { fallback: { share: 0.5 } } });
    expect((await limiter.consume('a')).source).toBe('fallback');
    store.mode = 'ok';
    expect((await limiter.consume('a')).source).toBe('store');
  });

  it('rejects a share out of range and an unknown policy, naming the field', () => {
    expect(() => createLimiter({ qps: 1, onStoreError: { fallback: { share: 2 } } })).toThrow(
      expect.objectContaining({ field: 'onStoreError.fallback.share' }),
    );
    expect(() => createLimiter({ qps: 1, onStoreError: 'half' as never })).toThrow(expect.objectContaining({ field: 'onStoreError' }));
  });
});

describe('store failures are reported', () => {
  it('emits storeError and fallback with the reason', async () => {
    const store = new ControlledStore();
    const errors: StoreErrorEvent[] = [];
    const fallbacks: FallbackEvent[] = [];
    const limiter = createLimiter({
      qps: 1,
      store,
      rule: 'login',
      timeout: 20,
      breaker: false,
      events: { storeError: (e) => errors.push(e), fallback: (e) => fallbacks.push(e) },
    });
    store.mode = 'reject';
    await limiter.consume('a');
    store.mode = 'hang';
    await limiter.consume('b');
    store.answerHung();
    expect(errors.map((e) => [e.rule, e.key, e.reason, e.error instanceof TollgateError, e.error.code])).toEqual([
      ['login', 'a', 'error', true, 'ERR_TOLLGATE_STORE'],
      ['login', 'b', 'timeout', true, 'ERR_TOLLGATE_STORE'],
    ]);
    expect(errors[0]!.error.cause).toBeInstanceOf(Error);
    expect(fallbacks.map((e) => [e.key, e.reason, e.policy, e.decision.allowed])).toEqual([
      ['a', 'error', 'open', true],
      ['b', 'timeout', 'open', true],
    ]);
  });

  it('skips the timer for a MemoryStore, which never waits', async () => {
    const limiter = createLimiter({ qps: 1, store: new MemoryStore(), timeout: 1 });
    expect((await limiter.consume('a')).source).toBe('store');
  });

  it('validates the new options, naming the field', () => {
    expect(() => createLimiter({ qps: 1, timeout: 0 })).toThrow(expect.objectContaining({ field: 'timeout' }));
    expect(() => createLimiter({ qps: 1, breaker: { failureThreshold: 0 } })).toThrow(
      expect.objectContaining({ field: 'breaker.failureThreshold' }),
    );
    expect(() => createLimiter({ qps: 1, shadow: 'yes' as never })).toThrow(expect.objectContaining({ field: 'shadow' }));
    expect(() => createLimiter({ qps: 1, events: { alowed: () => {} } as never })).toThrow(
      expect.objectContaining({ field: 'events.alowed' }),
    );
    expect(() => createLimiter({ qps: 1, denyCache: { maxEntries: -1 }, store: new ControlledStore() })).toThrow(
      expect.objectContaining({ field: 'denyCache.maxEntries' }),
    );
  });
});
