import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_SPAN_MS } from '../../src/algorithms/fields.js';
import { createLimiter, type LimitSpec, TollgateError } from '../../src/index.js';
import { guavaStopwatch } from '../helpers/guava-stopwatch.js';
import { type StoreUnderTest, startBackends } from '../helpers/stores.js';

// Guava's RateLimiterTest (guava/src/test/com/google/common/util/concurrent/RateLimiterTest.java),
// ported case by case. The mapping is written down in the core README ("Published references").

let backends: StoreUnderTest[];
let close: () => Promise<void>;

beforeAll(async () => {
  ({ stores: backends, close } = await startBackends());
});
afterAll(() => close?.());

/** Guava `RateLimiter.create(permitsPerSecond, warmupPeriod, MILLISECONDS, coldFactor)`. */
const smoothWarmingUp = (rate: number, warmupMs: number, coldFactor: number): LimitSpec => ({
  algorithm: 'warm-up',
  rate,
  warmup: warmupMs,
  coldFactor,
});

/**
 * Guava `RateLimiter.create(permitsPerSecond)` (SmoothBursty, one second of stored permits):
 * `burst` is the stored permits plus the one a caller may always take now; `reserve` makes a
 * request wait (its `delayMs`) instead of being refused, as `acquire` does.
 */
const SMOOTH_BURSTY: Record<string, (rate: number, reserve: boolean) => LimitSpec> = {
  gcra: (rate, reserve) => ({ algorithm: 'gcra', rate, burst: rate + 1, ...(reserve ? { mode: 'reserve', maxDelay: '1h' } : {}) }),
  'token-bucket': (rate, reserve) => ({
    algorithm: 'token-bucket',
    capacity: rate + 1,
    refillPerSecond: rate,
    ...(reserve ? { mode: 'reserve', maxDelay: '1h' } : {}),
  }),
};

describe.each(['memory', 'redis', 'cluster'] as const)('Guava RateLimiterTest on the %s store', (name) => {
  const store = () => backends.find((b) => b.name === name)!.store;

  describe('SmoothWarmingUp → warm-up', () => {
    it('testWarmUp', async () => {
      const sw = guavaStopwatch(store(), smoothWarmingUp(2, 4000, 3));
      for (let i = 0; i < 8; i++) await sw.acquire();
      sw.sleepMillis(500);
      sw.sleepMillis(4000);
      for (let i = 0; i < 8; i++) await sw.acquire();
      sw.sleepMillis(500);
      sw.sleepMillis(2000);
      for (let i = 0; i < 8; i++) await sw.acquire();
      expect(sw.readEventsAndClear()).toBe(
        [
          'R0.00, R1.38, R1.13, R0.88, R0.63, R0.50, R0.50, R0.50',
          'U0.50',
          'U4.00',
          'R0.00, R1.38, R1.13, R0.88, R0.63, R0.50, R0.50, R0.50',
          'U0.50',
          'U2.00',
          'R0.00, R0.50, R0.50, R0.50, R0.50, R0.50, R0.50, R0.50',
        ].join(', '),
      );
    });

    it('testWarmUpWithColdFactor', async () => {
      const sw = guavaStopwatch(store(), smoothWarmingUp(5, 4000, 10));
      for (let i = 0; i < 8; i++) await sw.acquire();
      sw.sleepMillis(200);
      sw.sleepMillis(4000);
      for (let i = 0; i < 8; i++) await sw.acquire();
      sw.sleepMillis(200);
      sw.sleepMillis(1000);
      for (let i = 0; i < 8; i++) await sw.acquire();
      expect(sw.readEventsAndClear()).toBe(
        [
          'R0.00, R1.75, R1.26, R0.76, R0.30, R0.20, R0.20, R0.20',
          'U0.20',
          'U4.00',
          'R0.00, R1.75, R1.26, R0.76, R0.30, R0.20, R0.20, R0.20',
          'U0.20',
          'U1.00',
          'R0.00, R0.20, R0.20, R0.20, R0.20, R0.20, R0.20, R0.20',
        ].join(', '),
      );
    });

    it('testWarmUpWithColdFactor1', async () => {
      const sw = guavaStopwatch(store(), smoothWarmingUp(5, 4000, 1));
      for (let i = 0; i < 8; i++) await sw.acquire();
      sw.sleepMillis(340);
      for (let i = 0; i < 8; i++) await sw.acquire();
      expect(sw.readEventsAndClear()).toBe(
        ['R0.00, R0.20, R0.20, R0.20, R0.20, R0.20, R0.20, R0.20', 'U0.34', 'R0.00, R0.20, R0.20, R0.20, R0.20, R0.20, R0.20, R0.20'].join(
          ', ',
        ),
      );
    });

    // The "#7" legs of testWarmUpAndUpdate(WithColdFactor): after setRate, from totally cold.
    // Tollgate has no setRate: a limiter created at the new rate starts from the same state.
    it.each([
      [4, 3, 'R0.00, R0.72, R0.66, R0.59, R0.53, R0.47, R0.41, R0.34, R0.28, R0.25, R0.25'],
      [10, 10, 'R0.00, R0.94, R0.81, R0.69, R0.57, R0.44, R0.32, R0.20, R0.10, R0.10, R0.10'],
    ])('testWarmUpAndUpdate: %d/s, cold factor %d, 11 permits from cold', async (rate, coldFactor, events) => {
      const sw = guavaStopwatch(store(), smoothWarmingUp(rate, 4000, coldFactor));
      for (let i = 0; i < 11; i++) await sw.acquire();
      expect(sw.readEventsAndClear()).toBe(events);
    });

    it('testTimeToWarmUpIsHonouredEvenWithWeights', async () => {
      const warmupPermits = 10;
      const weights = fc.array(fc.integer({ min: 1, max: warmupPermits }), { minLength: 1, maxLength: warmupPermits });
      for (const coldFactor of [2, 3, 10]) {
        for (const qps of [4, 2, 1, 0.5, 0.1]) {
          const warmupMillis = Math.trunc((((1 + coldFactor) * warmupPermits) / (2 * qps)) * 1000);
          for (const split of fc.sample(weights, { numRuns: 3, seed: coldFactor * 100 + qps * 10 })) {
            const sw = guavaStopwatch(store(), smoothWarmingUp(qps, warmupMillis, coldFactor));
            let permits = warmupPermits;
            let totalMs = 0;
            for (const weight of split) {
              if (permits === 0) break;
              const take = Math.min(weight, permits);
              permits -= take;
              totalMs += await sw.acquire(take);
            }
            if (permits > 0) totalMs += await sw.acquire(permits);
            totalMs += await sw.acquire(1); // to repay for any pending debt
            // Guava counts whole µs and truncates to ms; a ms clock admits on the next ms tick.
            expect(totalMs - warmupMillis, `cold factor ${coldFactor}, ${qps}/s, weights ${split}`).toBeGreaterThanOrEqual(0);
            expect(totalMs - warmupMillis, `cold factor ${coldFactor}, ${qps}/s, weights ${split}`).toBeLessThanOrEqual(1);
          }
        }
      }
    });
  });

  describe.each(Object.keys(SMOOTH_BURSTY))('SmoothBursty → %s', (algorithm) => {
    /** Guava creates SmoothBursty with no stored permits: spend them first, at the start instant. */
    async function created(rate: number, reserve = true) {
      const sw = guavaStopwatch(store(), SMOOTH_BURSTY[algorithm]!(rate, reserve));
      expect(await sw.tryAcquire(rate)).toBe(true);
      return sw;
    }

    it('testSimple', async () => {
      const sw = await created(5);
      for (let i = 0; i < 3; i++) await sw.acquire();
      expect(sw.readEventsAndClear()).toBe('R0.00, R0.20, R0.20');
    });

    it('testImmediateTryAcquire', async () => {
      const sw = await created(1, false);
      expect(await sw.tryAcquire()).toBe(true);
      expect(await sw.tryAcquire()).toBe(false);
    });

    it('testSimpleWithWait / testSimpleAcquireReturnValues', async () => {
      const sw = await created(5);
      expect(await sw.acquire()).toBe(0);
      sw.sleepMillis(200);
      expect(await sw.acquire()).toBe(0);
      expect(await sw.acquire()).toBe(200);
      expect(sw.readEventsAndClear()).toBe('R0.00, U0.20, R0.00, R0.20');
    });

    it('testSimpleAcquireEarliestAvailableIsInPast', async () => {
      const sw = await created(5);
      expect(await sw.acquire()).toBe(0);
      sw.sleepMillis(400);
      expect(await sw.acquire()).toBe(0);
      expect(await sw.acquire()).toBe(0);
      expect(await sw.acquire()).toBe(200);
    });

    it('testOneSecondBurst', async () => {
      const sw = await created(5);
      sw.sleepMillis(1000);
      sw.sleepMillis(1000);
      await sw.acquire(1);
      await sw.acquire(1);
      await sw.acquire(3);
      await sw.acquire(1);
      await sw.acquire();
      expect(sw.readEventsAndClear()).toBe('U1.00, U1.00, R0.00, R0.00, R0.00, R0.00, R0.20');
    });

    it('testTryAcquire_noWaitAllowed', async () => {
      const sw = await created(5, false);
      expect(await sw.tryAcquire()).toBe(true);
      expect(await sw.tryAcquire()).toBe(false);
      expect(await sw.tryAcquire()).toBe(false);
      sw.sleepMillis(100);
      expect(await sw.tryAcquire()).toBe(false);
    });
  });

  it('testDoubleMinValueCanAcquireExactlyOnce: the slowest rate Tollgate accepts', async () => {
    const sw = guavaStopwatch(store(), { algorithm: 'gcra', rate: 1, period: MAX_SPAN_MS });
    expect(await sw.tryAcquire()).toBe(true);
    expect(await sw.tryAcquire()).toBe(false);
    sw.sleepMillis(2 ** 31 - 1);
    expect(await sw.tryAcquire()).toBe(false);
  });
});

it('testVerySmallDoubleValues: Double.MIN_VALUE itself is refused, naming the field', () => {
  expect(() => createLimiter({ algorithm: 'gcra', rate: Number.MIN_VALUE })).toThrow(TollgateError);
  expect(() => createLimiter({ qps: Number.MIN_VALUE })).toThrow(expect.objectContaining({ field: 'spec.qps' }));
});
