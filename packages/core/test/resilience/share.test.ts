import { describe, expect, it } from 'vitest';
import { type AlgorithmName, type LimitSpec, shareOfRule } from '../../src/index.js';

// Durations are plain numbers here, so a duration scaled by mistake shows.
/** A spec of each algorithm, and its quarter: counts rounded down (at least 1), rates as they are, the rest kept. */
const QUARTERS: Record<AlgorithmName, [LimitSpec, LimitSpec][]> = {
  gcra: [
    [
      { algorithm: 'gcra', rate: 10, period: 1000, burst: 7, mode: 'reserve', maxDelay: 400 },
      { algorithm: 'gcra', rate: 2.5, period: 1000, burst: 1, mode: 'reserve', maxDelay: 400 },
    ],
  ],
  'token-bucket': [
    [
      { algorithm: 'token-bucket', capacity: 10, refillPerSecond: 6, mode: 'reserve', maxDelay: 400 },
      { algorithm: 'token-bucket', capacity: 2, refillPerSecond: 1.5, mode: 'reserve', maxDelay: 400 },
    ],
    [
      { algorithm: 'token-bucket', capacity: 3, refillAmount: 2, refillInterval: 800 },
      { algorithm: 'token-bucket', capacity: 1, refillAmount: 0.5, refillInterval: 800 },
    ],
  ],
  'fixed-window': [
    [
      { algorithm: 'fixed-window', limit: 100, window: 60_000 },
      { algorithm: 'fixed-window', limit: 25, window: 60_000 },
    ],
    // A count of 0 admits nothing, in every share; a count that never resets keeps its window.
    [
      { algorithm: 'fixed-window', limit: 0, window: 'forever' },
      { algorithm: 'fixed-window', limit: 0, window: 'forever' },
    ],
  ],
  'sliding-window-log': [
    [
      { algorithm: 'sliding-window-log', limit: 9, window: 60_000 },
      { algorithm: 'sliding-window-log', limit: 2, window: 60_000 },
    ],
  ],
  'sliding-window-counter': [
    [
      { algorithm: 'sliding-window-counter', limit: 2, window: 60_000 },
      { algorithm: 'sliding-window-counter', limit: 1, window: 60_000 },
    ],
  ],
  'leaky-bucket': [
    [
      { algorithm: 'leaky-bucket', rate: 6, period: 1000, burst: 5 },
      { algorithm: 'leaky-bucket', rate: 1.5, period: 1000, burst: 1 },
    ],
    [
      { algorithm: 'leaky-bucket', rate: 6, period: 1000, mode: 'shaping', maxDelay: 400 },
      { algorithm: 'leaky-bucket', rate: 1.5, period: 1000, mode: 'shaping', maxDelay: 400 },
    ],
  ],
  'warm-up': [
    [
      { algorithm: 'warm-up', rate: 6, period: 1000, warmup: 3000, coldFactor: 3 },
      { algorithm: 'warm-up', rate: 1.5, period: 1000, warmup: 3000, coldFactor: 3 },
    ],
  ],
  concurrency: [
    [
      { algorithm: 'concurrency', limit: 8, leaseTtl: 3000 },
      { algorithm: 'concurrency', limit: 2, leaseTtl: 3000 },
    ],
  ],
};

const SHORTHAND_QUARTERS: [LimitSpec, LimitSpec][] = [
  [
    { qps: 10, burst: 6, mode: 'reserve', maxDelay: 400 },
    { qps: 2.5, burst: 1, mode: 'reserve', maxDelay: 400 },
  ],
  [{ perSecond: 2 }, { perSecond: 0.5 }],
  [
    { perMinute: 300, burst: 20 },
    { perMinute: 75, burst: 5 },
  ],
  [{ perHour: 6 }, { perHour: 1.5 }],
  [{ perDay: 1 }, { perDay: 0.25 }],
  [
    { rate: 100, period: 60_000 },
    { rate: 25, period: 60_000 },
  ],
];

describe('shareOfRule', () => {
  it.each(Object.values(QUARTERS).flat())("scales %o to a quarter by its algorithm's field kinds", (spec, quarter) => {
    expect(shareOfRule(spec, 1 / 4)).toEqual(quarter);
  });

  it.each(SHORTHAND_QUARTERS)('scales the shorthand %o to a quarter', (spec, quarter) => {
    expect(shareOfRule(spec, 1 / 4)).toEqual(quarter);
  });

  it('scales every limit of a multi-limit rule, keeping their names', () => {
    const rule = {
      limits: [
        { name: 'burst', qps: 8 },
        { algorithm: 'fixed-window' as const, limit: 1000, window: 3_600_000 },
      ],
    };
    expect(shareOfRule(rule, 1 / 4)).toEqual({
      limits: [
        { name: 'burst', qps: 2 },
        { algorithm: 'fixed-window', limit: 250, window: 3_600_000 },
      ],
    });
  });
});
