import { describe, expect, it } from 'vitest';
import { createAimd } from '../../src/adaptive/limits/aimd.js';
import { addToExpAvg, EMPTY_EXP_AVG } from '../../src/adaptive/limits/exp-avg.js';
import { createGradient2 } from '../../src/adaptive/limits/gradient2.js';
import { log10Root } from '../../src/adaptive/limits/log10-root.js';
import type { LimitAlgorithm, LimitSample, LimitState } from '../../src/adaptive/limits/sample.js';
import { createVegas, type VegasOptions } from '../../src/adaptive/limits/vegas.js';

const sample = (rttMs: number, inflight: number, dropped = false): LimitSample => ({ rttMs, inflight, dropped });

/** Feeds samples one by one, returning the limit after each (Netflix's tests read `getLimit()` after every `onSample`). */
function limitsAfter<S extends LimitState>(algorithm: LimitAlgorithm<S>, samples: readonly LimitSample[]): number[] {
  let state = algorithm.initial;
  return samples.map((next) => {
    state = algorithm.step(state, next);
    return state.limit;
  });
}

// Ported from Netflix concurrency-limits, AIMDLimitTest.java (rtt in ms instead of ns).
describe('AIMD', () => {
  it('starts at its initial limit', () => {
    expect(createAimd({ initialLimit: 10, minLimit: 1 }, 'limit.').initial.limit).toBe(10);
  });

  it('increases by one on a success', () => {
    expect(limitsAfter(createAimd({ initialLimit: 20 }, ''), [sample(1, 10)])).toEqual([21]);
  });

  it('decreases by the backoff ratio on a drop', () => {
    expect(limitsAfter(createAimd({ initialLimit: 30 }, ''), [sample(0, 0, true)])).toEqual([27]);
  });

  it('stays at the maximum after a success', () => {
    expect(limitsAfter(createAimd({ initialLimit: 21, maxLimit: 21, minLimit: 1 }, ''), [sample(1, 10)])).toEqual([21]);
  });

  it('counts a round trip past the timeout as a drop, and does not grow while under half used', () => {
    const aimd = createAimd({ initialLimit: 40, timeoutMs: 100 }, '');
    expect(limitsAfter(aimd, [sample(101, 40), sample(100, 19), sample(100, 18)])).toEqual([36, 37, 37]);
  });

  it('never goes below the minimum', () => {
    expect(limitsAfter(createAimd({ initialLimit: 21, minLimit: 20 }, ''), [sample(1, 1, true), sample(1, 1, true)])).toEqual([20, 20]);
  });
});

// Ported from Netflix concurrency-limits, VegasLimitTest.java.
describe('Vegas', () => {
  // Netflix's VegasLimit moves on every sample: `oncePerRoundTrip: false` for the ported cases.
  const create = (options: VegasOptions = {}) =>
    createVegas({ alpha: 3, beta: 6, smoothing: 1, initialLimit: 10, maxLimit: 20, oncePerRoundTrip: false, ...options }, '');

  it('increases a large limit by beta when nothing queues', () => {
    const vegas = createVegas({ initialLimit: 10000, maxLimit: 20000 }, '');
    expect(limitsAfter(vegas, [sample(10_000, 5000), sample(10_000, 6000)])).toEqual([10000, 10024]);
  });

  it('increases the limit', () => {
    expect(limitsAfter(create(), [sample(10, 10), sample(10, 11)])).toEqual([10, 16]);
  });

  it('decreases the limit', () => {
    expect(limitsAfter(create(), [sample(10, 10), sample(50, 11)])).toEqual([10, 9]);
  });

  it('does not change within the thresholds', () => {
    expect(limitsAfter(create(), [sample(10, 10), sample(14, 14)])).toEqual([10, 10]);
  });

  it('smooths a decrease', () => {
    const vegas = createVegas(
      { decrease: (limit) => limit / 2, smoothing: 0.5, initialLimit: 100, maxLimit: 200, oncePerRoundTrip: false },
      '',
    );
    expect(limitsAfter(vegas, [sample(10, 100), sample(20, 100), sample(20, 100)])).toEqual([100, 75, 56]);
  });

  it('decreases without smoothing', () => {
    const vegas = createVegas({ decrease: (limit) => limit / 2, initialLimit: 100, maxLimit: 200, oncePerRoundTrip: false }, '');
    expect(limitsAfter(vegas, [sample(10, 100), sample(20, 100), sample(20, 100)])).toEqual([100, 50, 25]);
  });

  it('decreases on a drop whatever the round trip', () => {
    expect(limitsAfter(create(), [sample(10, 10), sample(10, 10, true)])).toEqual([10, 9]);
  });

  it('does not grow while under half used', () => {
    expect(limitsAfter(create(), [sample(10, 10), sample(10, 4)])).toEqual([10, 10]);
  });

  it('moves the limit at most once per round trip, down to what leaves beta queued: the next `limit` samples measured the old one', () => {
    const slow = Array.from({ length: 10 }, () => sample(50, 11));
    // Queue ceil(10 × (1 − 10 / 50)) = 8, 2 above beta: down to 8. The 8 samples after it hold it;
    // the next sees ceil(8 × 0.8) = 7 queued, 1 above beta: down by log10(8) = 1.
    expect(limitsAfter(create({ oncePerRoundTrip: true }), [sample(10, 10), ...slow])).toEqual([10, 8, ...Array(8).fill(8), 7]);
  });

  it('probes the no-load round trip by halving the limit until a request sent at that concurrency measures it', () => {
    // Jitter 0.5 + 0.5 × 0 = 0.5: a probe every 0.5 × 2 × 10 = 10 samples.
    const vegas = createVegas({ alpha: 3, beta: 6, initialLimit: 10, maxLimit: 20, probeMultiplier: 2, random: () => 0 }, '');
    let state = vegas.step(vegas.initial, sample(10, 1));
    for (let i = 0; i < 8; i++) state = vegas.step(state, sample(40, 1));
    expect(state).toMatchObject({ limit: 10, probing: false, noLoadRttMs: 10 });
    state = vegas.step(state, sample(40, 1));
    expect(state).toMatchObject({ limit: 5, probing: true, noLoadRttMs: 10 });
    // Sent with 8 in flight, before the limit was halved: it saw the queue.
    state = vegas.step(state, sample(40, 8));
    expect(state).toMatchObject({ limit: 5, probing: true, noLoadRttMs: 10 });
    state = vegas.step(state, sample(30, 5));
    // Back to 10, held for the 5 requests sent under the probe and the 10 let in as it ended.
    expect(state).toMatchObject({ limit: 10, probing: false, noLoadRttMs: 30, probeCount: 0, holdFor: 15 });
  });
});

describe('Gradient2', () => {
  it('adds the queue allowance (smoothed) while the round trip holds', () => {
    const gradient2 = createGradient2({ initialLimit: 20, minLimit: 1 }, '');
    // gradient min(1, 1.5 × 10 / 10) = 1: 20 × 1 + 4 = 24, smoothed 0.8 × 20 + 0.2 × 24 = 20.8, then 21.64.
    expect(limitsAfter(gradient2, [sample(10, 20), sample(10, 20)])).toEqual([20, 21]);
  });

  it('shrinks by at most half when the short round trip jumps above the long one', () => {
    const gradient2 = createGradient2({ initialLimit: 100, minLimit: 1, smoothing: 1, queueSize: 0 }, '');
    const warm = Array.from({ length: 10 }, () => sample(10, 100));
    // 10 samples at 10 ms, then 1000 ms: the long average becomes 100, gradient max(0.5, 1.5 × 100 / 1000) = 0.5.
    expect(limitsAfter(gradient2, [...warm, sample(1000, 100)]).at(-1)).toBe(50);
  });

  it('does not grow while application-limited, but keeps averaging', () => {
    const gradient2 = createGradient2({ initialLimit: 20, minLimit: 1 }, '');
    let state = gradient2.step(gradient2.initial, sample(10, 9));
    expect(state.limit).toBe(20);
    state = gradient2.step(state, sample(30, 9));
    expect(gradient2.estimates(state)).toEqual({ longRttMs: 20 });
  });

  it('decays the long average when it is more than twice the short round trip', () => {
    const gradient2 = createGradient2({ initialLimit: 20, minLimit: 1 }, '');
    let state = gradient2.step(gradient2.initial, sample(100, 0));
    state = gradient2.step(state, sample(10, 0));
    // Mean 55, over twice 10: × 0.95.
    expect(state.longRtt.value).toBeCloseTo(52.25, 10);
  });

  it('takes the steepest gradient on a drop', () => {
    const gradient2 = createGradient2({ initialLimit: 100, minLimit: 1, smoothing: 1, queueSize: 0 }, '');
    expect(limitsAfter(gradient2, [sample(10, 100, true)])).toEqual([50]);
  });

  it('stays within its bounds', () => {
    const gradient2 = createGradient2({ initialLimit: 30, minLimit: 25, maxLimit: 31, smoothing: 1 }, '');
    const warm = Array.from({ length: 10 }, () => sample(10, 30));
    expect(limitsAfter(gradient2, [...warm, sample(1000, 30)])).toEqual([...warm.map(() => 31), 25]);
  });
});

// Ported from Netflix concurrency-limits, ExpAvgMeasurementTest.java.
describe('the exponential average', () => {
  it('is a plain mean while warming up, then exponential', () => {
    const expected = [10.0, 10.5, 11, 11.5, 12, 12.5, 13, 13.5, 14, 14.5];
    let average = EMPTY_EXP_AVG;
    for (let i = 0; i < 10; i++) {
      average = addToExpAvg(average, i + 10, 100, 10);
      expect(average.value).toBeCloseTo(expected[i]!, 2);
    }
    average = addToExpAvg(average, 100, 100, 10);
    expect(Math.abs(average.value - 16.2)).toBeLessThan(0.1);
  });
});

describe('log10Root', () => {
  it('is at least 1 and the floor of log10 above', () => {
    expect([0, 1, 9, 10, 99, 100, 999, 1000, 10000].map(log10Root)).toEqual([1, 1, 1, 1, 1, 2, 2, 3, 4]);
  });
});
