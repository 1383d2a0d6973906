import { expect, it } from 'vitest';
import { describeTraces, type TraceLimiter } from '../../helpers/describe-traces.js';

/** A client that retries exactly when told: the gaps between the requests admitted. */
async function admittedGaps(limiter: TraceLimiter, count: number): Promise<number[]> {
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

describeTraces('warm-up reference traces', (setup) => {
  it('warm-up 2/s over 3 s (Guava SmoothWarmingUp): starts slow, reaches 500 ms spacing', async () => {
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
});
