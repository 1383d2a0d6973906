import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLimiter, type Decision, type RuleSpec } from '../../src/index.js';
import { STORE_SEMANTICS, type StoreUnderTest, startBackends } from '../helpers/stores.js';

let backends: StoreUnderTest[];
let close: () => Promise<void>;

beforeAll(async () => {
  ({ stores: backends, close } = await startBackends());
});
afterAll(() => close?.());

let prefixCounter = 0;

describe.each(['memory', 'redis', 'cluster'] as const)('warm-up and reserve-mode seed traces on the %s store', (name) => {
  function setup(rule: RuleSpec) {
    let now = Date.UTC(2026, 5, 1, 12);
    const { store } = backends.find((b) => b.name === name)!;
    const limiter = createLimiter({ ...rule, store, clock: () => now, prefix: `smooth${prefixCounter++}`, ...STORE_SEMANTICS });
    return {
      limiter,
      advance: (ms: number) => {
        now += ms;
      },
      burst: async (count: number, cost = 1): Promise<Decision[]> => {
        const decisions: Decision[] = [];
        for (let i = 0; i < count; i++) decisions.push(await limiter.consume('user-1', { cost }));
        return decisions;
      },
    };
  }

  /** A client that retries exactly when told: the gaps between the requests admitted. */
  async function admittedGaps(limiter: ReturnType<typeof setup>, count: number): Promise<number[]> {
    const gaps: number[] = [];
    let sinceLast = 0;
    while (gaps.length < count) {
      const decision = await limiter.limiter.consume('user-1');
      if (decision.allowed) {
        gaps.push(sinceLast);
        sinceLast = 0;
        continue;
      }
      expect(decision.retryAfterMs).toBeGreaterThan(0);
      limiter.advance(decision.retryAfterMs);
      sinceLast += decision.retryAfterMs;
    }
    return gaps.slice(1);
  }

  it('warm-up 2/s over 3 s (seed 004, Guava SmoothWarmingUp): starts slow, reaches 500 ms spacing', async () => {
    const warm = setup({ algorithm: 'warm-up', rate: 2, warmup: '3s' });
    // Stable interval 500 ms, cold 1500 ms; threshold 3 permits, 6 when cold. Spending the
    // stored permits 6→5, 5→4, 4→3 costs the trapezoid areas 1333⅓, 1000, 666⅔ ms (together
    // the 3 s warm-up), then every permit costs 500 ms. The schedule is kept in µs, as Guava's:
    // admissions fall on the first ms tick of 1333.333, 2333.333, 2999.999, 3499.999 ms... and
    // a client retrying on that tick gains no idle time, so the gaps add up to the warm-up.
    expect(await admittedGaps(warm, 8)).toEqual([1334, 1000, 666, 500, 500, 500, 500]);
    // The last permit was paid 500 ms ahead; idling stores one permit per 500 ms (warm-up /
    // 6 permits). 2.5 s more store 5: the ramp resumes from the 5→4 step.
    warm.advance(3000);
    expect(await admittedGaps(warm, 4)).toEqual([1000, 667, 500]);
    // 3 s of idleness store all 6: fully cold again.
    warm.advance(3500);
    expect(await admittedGaps(warm, 4)).toEqual([1334, 1000, 666]);
  });

  it('warm-up: one request at a time; a denial changes nothing; coldFactor sets the cold interval', async () => {
    const { limiter, advance } = setup({ algorithm: 'warm-up', rate: 10, warmup: '1s', coldFactor: 5 });
    expect(await limiter.consume('user-1')).toMatchObject({ allowed: true, limit: 1, remaining: 0 });
    const denied = await limiter.consume('user-1');
    // Stable 100 ms, cold 500 ms: threshold 5 permits, 5 + 2·1000/600 = 8⅓ when cold; the
    // first permit costs the trapezoid from 8⅓ to 7⅓ stored permits: (500 + 380) / 2 = 440 ms.
    expect(denied).toMatchObject({ allowed: false, remaining: 0, retryAfterMs: 440, resetAfterMs: 440 });
    expect(await limiter.consume('user-1')).toEqual(denied);
    advance(439);
    expect(await limiter.consume('user-1')).toMatchObject({ allowed: false, retryAfterMs: 1 });
    advance(1);
    expect((await limiter.consume('user-1')).allowed).toBe(true);
  });

  it('gcra reserve mode: 10/s burst 2 lends up to 300 ms ahead, evenly spaced delays', async () => {
    const { burst, limiter, advance } = setup({ algorithm: 'gcra', rate: 10, burst: 2, mode: 'reserve', maxDelay: 300 });
    const decisions = await burst(6);
    expect(decisions.map((d) => [d.allowed, d.delayMs, d.remaining])).toEqual([
      [true, 0, 4],
      [true, 0, 3],
      [true, 100, 2],
      [true, 200, 1],
      [true, 300, 0],
      [false, 0, 0],
    ]);
    expect(decisions[0]!.limit).toBe(5);
    expect(decisions[5]).toMatchObject({ retryAfterMs: 100 });
    // A cost whose delay would exceed maxDelay even from rest can never pass.
    expect(await limiter.consume('user-2', { cost: 6 })).toMatchObject({ allowed: false, retryAfterMs: Infinity });
    advance(100);
    expect(await limiter.consume('user-1')).toMatchObject({ allowed: true, delayMs: 300 });
  });

  it('token-bucket reserve mode (seed 004, SmoothBursty): a cost beyond the tokens borrows and waits', async () => {
    const { limiter, advance } = setup({ algorithm: 'token-bucket', capacity: 2, refillPerSecond: 2, mode: 'reserve', maxDelay: '2s' });
    // 2 tokens in the bucket, 3 borrowed at 2 per second: due in 1.5 s.
    expect(await limiter.consume('user-1', { cost: 5 })).toMatchObject({ allowed: true, delayMs: 1500, remaining: 1, limit: 6 });
    expect(await limiter.consume('user-1')).toMatchObject({ allowed: true, delayMs: 2000, remaining: 0 });
    const denied = await limiter.consume('user-1');
    expect(denied).toMatchObject({ allowed: false, retryAfterMs: 500, resetAfterMs: 3000 });
    // The denial borrowed nothing.
    advance(500);
    expect(await limiter.consume('user-1')).toMatchObject({ allowed: true, delayMs: 2000 });
    expect(await limiter.consume('user-2', { cost: 7 })).toMatchObject({ allowed: false, retryAfterMs: Infinity });
  });

  it('reserve mode in a multi-limit rule: the longest delay wins, a denial elsewhere borrows nothing', async () => {
    const { limiter } = setup({
      limits: [
        { name: 'smooth', qps: 10, burst: 1, mode: 'reserve', maxDelay: '1s' },
        { name: 'minute', algorithm: 'fixed-window', limit: 3, window: '1m' },
      ],
    });
    const delays = [];
    for (let i = 0; i < 3; i++) delays.push((await limiter.consume('user-1')).delayMs);
    expect(delays).toEqual([0, 100, 200]);
    const denied = await limiter.consume('user-1');
    expect(denied).toMatchObject({ allowed: false, limitName: 'minute', delayMs: 0 });
    // Nothing was borrowed by the denied request: the smooth limit still lends 7 more.
    expect(denied.limits[0]).toMatchObject({ name: 'smooth', allowed: true, remaining: 8 });
  });
});
