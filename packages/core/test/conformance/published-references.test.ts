import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Decision, RuleSpec } from '../../src/index.js';
import { type StoreUnderTest, startBackends } from '../helpers/stores.js';
import { allowedFlags, virtualLimiter } from '../helpers/virtual-limiter.js';

// The published expectations of redis-cell, go-redis/redis_rate, nginx limit_req and Cloudflare's
// sliding-window write-up, ported case by case. The mapping and the deliberate differences are
// written down in the core README ("Published references").

let backends: StoreUnderTest[];
let close: () => Promise<void>;

beforeAll(async () => {
  ({ stores: backends, close } = await startBackends());
});
afterAll(() => close?.());

/** What a limiter reports, in the shape the references report it. */
const report = (d: Decision) => ({
  allowed: d.allowed,
  limit: d.limit,
  remaining: d.remaining,
  resetAfterMs: d.resetAfterMs,
  retryAfterMs: d.retryAfterMs,
});

describe.each(['memory', 'redis', 'cluster'] as const)('published references on the %s store', (name) => {
  /** A limiter under a virtual clock; `at(ms)` moves the clock to `ms` after the start. */
  function setup(rule: RuleSpec) {
    const clock = virtualLimiter(backends.find((b) => b.name === name)!.store, rule);
    let elapsed = 0;
    return {
      ...clock,
      at(ms: number) {
        clock.advance(ms - elapsed);
        elapsed = ms;
      },
    };
  }

  describe('redis-cell (CL.THROTTLE <key> <max_burst> <count per period> <period> [<quantity>]) → gcra', () => {
    it('README: CL.THROTTLE user123 15 30 60 → 0, 16, 15, -1, 2', async () => {
      // max_burst 15 → burst 16 (redis-cell's limit is max_burst + 1); 30 per 60 s.
      const { limiter } = setup({ algorithm: 'gcra', rate: 30, period: '60s', burst: 16 });
      expect(report(await limiter.consume('user-1'))).toEqual({
        allowed: true,
        limit: 16,
        remaining: 15,
        resetAfterMs: 2000,
        retryAfterMs: 0,
      });
    });

    it('it_rate_limits: max_burst 4, 1 per second', async () => {
      const cell = setup({ algorithm: 'gcra', rate: 1, period: '1s', burst: 5 });
      // (case, at ms, quantity, remaining, reset_after ms, retry_after ms (-1: never → Infinity; allowed → 0), limited)
      const cases: [number, number, number, number, number, number, boolean][] = [
        [0, 0, 6, 5, 0, Number.POSITIVE_INFINITY, true],
        [1, 0, 1, 4, 1000, 0, false],
        [2, 0, 1, 3, 2000, 0, false],
        [3, 0, 1, 2, 3000, 0, false],
        [4, 0, 1, 1, 4000, 0, false],
        [5, 0, 1, 0, 5000, 0, false],
        [6, 0, 1, 0, 5000, 1000, true],
        [7, 3000, 1, 2, 3000, 0, false],
        [8, 3100, 1, 1, 3900, 0, false],
        [9, 4000, 1, 1, 4000, 0, false],
        [10, 8000, 1, 4, 1000, 0, false],
        [11, 9500, 1, 4, 1000, 0, false],
        // 12 (quantity 0, a peek) is below; 13 and 14 follow it at the same instant.
        [13, 9500, 2, 2, 3000, 0, false],
        [14, 9500, 5, 2, 3000, 3000, true],
      ];
      for (const [num, at, quantity, remaining, resetAfterMs, retryAfterMs, limited] of cases) {
        cell.at(at);
        if (num === 13) {
          // Case 12 (quantity 0): redis-cell reports the state as is (4 left, full in 1 s); a peek
          // reports what is left as is, and when the limit would be full after a request of cost 1: in 2 s.
          expect(report(await cell.limiter.peek('user-1')), 'case 12').toEqual({
            allowed: true,
            limit: 5,
            remaining: 4,
            resetAfterMs: 2000,
            retryAfterMs: 0,
          });
        }
        const decision = await cell.limiter.consume('user-1', { cost: quantity });
        expect(report(decision), `case ${num}`).toEqual({ allowed: !limited, limit: 5, remaining, resetAfterMs, retryAfterMs });
      }
    });
  });

  describe('go-redis/redis_rate (Limit{Rate, Period, Burst}) → gcra', () => {
    const perSecond10 = { algorithm: 'gcra', rate: 10, period: '1s', burst: 10 } as const;

    it('TestAllow', async () => {
      const { limiter } = setup(perSecond10);
      expect(report(await limiter.consume('user-1'))).toEqual({
        allowed: true,
        limit: 10,
        remaining: 9,
        resetAfterMs: 100,
        retryAfterMs: 0,
      });
      await limiter.reset('user-1');
      expect(await limiter.consume('user-1')).toMatchObject({ allowed: true, remaining: 9, resetAfterMs: 100 });
      expect(await limiter.consume('user-1', { cost: 2 })).toMatchObject({ allowed: true, remaining: 7, resetAfterMs: 300 });
      // redis_rate: 999 ms ± 10 (its clock runs on); here the clock stands still.
      expect(await limiter.consume('user-1', { cost: 7 })).toMatchObject({ allowed: true, remaining: 0, resetAfterMs: 1000 });
      // redis_rate answers 99 s for 1000 units, which can never pass with a burst of 10; Tollgate says never.
      expect(await limiter.consume('user-1', { cost: 1000 })).toMatchObject({
        allowed: false,
        remaining: 0,
        resetAfterMs: 1000,
        retryAfterMs: Number.POSITIVE_INFINITY,
      });
    });

    it('TestAllowN_IncrementZero (AllowN 0 → peek, which reports what is left)', async () => {
      const { limiter } = setup(perSecond10);
      // redis_rate: remaining 10, reset 0; a peek: 10 left, full again 100 ms after a request of cost 1.
      expect(await limiter.peek('user-1')).toMatchObject({ allowed: true, remaining: 10, resetAfterMs: 100 });
      expect(await limiter.consume('user-1')).toMatchObject({ allowed: true, remaining: 9, resetAfterMs: 100 });
      // redis_rate: remaining 9, reset 100 ms; a peek's reset counts one more request: 200 ms.
      expect(await limiter.peek('user-1')).toMatchObject({ allowed: true, remaining: 9, resetAfterMs: 200 });
    });

    it('TestRetryAfter: 1 per ms, burst 1: a denial never asks for more than 1 ms', async () => {
      const { limiter, advance } = setup({ algorithm: 'gcra', rate: 1, period: 1, burst: 1 });
      for (let i = 0; i < 1000; i++) {
        const decision = await limiter.consume('user-1');
        if (!decision.allowed) expect(decision.retryAfterMs).toBeLessThanOrEqual(1);
        if (i % 3 === 0) advance(1);
      }
    });
  });

  describe('nginx limit_req (rate=r burst=b [nodelay | delay=d])', () => {
    it('limit_req.t: rate=2r/s burst=1 nodelay → gcra burst 2; rejects are not counted', async () => {
      const { burst, limiter, advance } = setup({ algorithm: 'gcra', rate: 2, burst: 2 });
      expect(allowedFlags(await burst(6))).toEqual([true, true, false, false, false, false]);
      advance(500); // 1/rate: access is allowed again
      expect((await limiter.consume('user-1')).allowed).toBe(true);
    });

    it('limit_req.t: rate=2r/s burst=5 → leaky-bucket shaping; the second request is delayed 1/rate', async () => {
      const { limiter } = setup({ algorithm: 'leaky-bucket', mode: 'shaping', rate: 2, maxDelay: '2500ms' });
      expect(await limiter.consume('user-1')).toMatchObject({ allowed: true, delayMs: 0 });
      expect(await limiter.consume('user-1')).toMatchObject({ allowed: true, delayMs: 500 });
    });

    it('limit_req.t: rate=1000r/s burst=1 → shaping; a drained bucket (negative excess) passes at once', async () => {
      const { limiter, advance } = setup({ algorithm: 'leaky-bucket', mode: 'shaping', rate: 1000, maxDelay: 1 });
      expect(await limiter.consume('user-1')).toMatchObject({ allowed: true, delayMs: 0 });
      advance(100);
      expect(await limiter.consume('user-1')).toMatchObject({ allowed: true, delayMs: 0 });
    });

    it('burst=b (delayed): at one instant 1 + b pass, the k-th held k/rate, the rest rejected', async () => {
      const { burst } = setup({ algorithm: 'leaky-bucket', mode: 'shaping', rate: 1, maxDelay: '5s' });
      const decisions = await burst(7);
      expect(allowedFlags(decisions)).toEqual([true, true, true, true, true, true, false]);
      expect(decisions.slice(0, 6).map((d) => d.delayMs)).toEqual([0, 1000, 2000, 3000, 4000, 5000]);
    });

    it('limit_req_delay.t: rate=30r/m delay=1 burst=2 → gcra reserve, burst 2, maxDelay 2 s', async () => {
      const { burst } = setup({ algorithm: 'gcra', rate: 30, period: '1m', burst: 2, mode: 'reserve', maxDelay: '2s' });
      const decisions = await burst(4);
      // Not yet delayed, not yet delayed, delayed (one interval), rejected.
      expect(decisions.map((d) => [d.allowed, d.delayMs])).toEqual([
        [true, 0],
        [true, 0],
        [true, 2000],
        [false, 0],
      ]);
    });

    it('limit_req2.t: two zones (1r/m and 1000r/s, no burst) → two leaky-bucket limits, all or nothing', async () => {
      const zones = (slow: boolean, fast: boolean): RuleSpec => ({
        limits: [
          ...(fast ? [{ name: 'fast', algorithm: 'leaky-bucket' as const, rate: 1000, burst: 1 }] : []),
          ...(slow ? [{ name: 'slow', algorithm: 'leaky-bucket' as const, rate: 1, period: '1m' as const, burst: 1 }] : []),
        ],
      });
      for (const [slow, fast, second] of [
        [false, true, true], // fast - passed
        [true, false, false], // slow - rejected
        [true, true, false], // both - rejected
      ] as const) {
        const { limiter, advance } = setup(zones(slow, fast));
        expect((await limiter.consume('user-1')).allowed).toBe(true);
        advance(100);
        expect((await limiter.consume('user-1')).allowed).toBe(second);
      }
    });
  });

  it("Cloudflare's sliding window: 50/min, 42 last minute, 18 in the first 15 s → 49.5, the next request is refused", async () => {
    const cf = setup({ algorithm: 'sliding-window-counter', limit: 50, window: '1m' });
    // The virtual clock starts on a minute boundary: the previous window is [0, 60 s).
    for (let i = 0; i < 42; i++) expect((await cf.limiter.consume('user-1')).allowed).toBe(true);
    cf.at(60_000 + 15_000);
    // 42 × 45/60 + 17 = 48.75: the 18th request of the current minute still fits (49.75 ≤ 50).
    expect(allowedFlags(await cf.burst(18)).every(Boolean)).toBe(true);
    // 42 × 45/60 + 18 = 49.5: one more would make 50.5.
    expect(await cf.limiter.consume('user-1')).toMatchObject({ allowed: false, remaining: 0 });
  });
});
