import fc from 'fast-check';
import type { AlgorithmName, LimitSpec } from '../../src/index.js';
import type { TraceStep } from '../helpers/trace.js';

const periodMs = fc.constantFrom(100, 250, 1000, 7000, 60_000);
/** A count, now and then 0 (admits nothing). */
const countOrZero = (max: number) =>
  fc.oneof({ weight: 1, arbitrary: fc.constant(0) }, { weight: 9, arbitrary: fc.integer({ min: 1, max }) });

/**
 * Random specs of every algorithm (a missing one fails to compile), including rates that do not
 * divide time evenly; `<algorithm> (<mode>)` adds another mode of one. Concurrency's specs feed
 * its acquire/release traces (`concurrency.test.ts`), the others the consume traces.
 */
const randomSpecs = {
  gcra: fc.record({
    algorithm: fc.constant('gcra' as const),
    rate: fc.oneof(fc.integer({ min: 1, max: 50 }), fc.constantFrom(0.5, 2.5, 3, 7, 1000 / 7)),
    period: periodMs,
    burst: fc.integer({ min: 1, max: 12 }),
  }),
  'token-bucket': fc.oneof(
    fc.record({
      algorithm: fc.constant('token-bucket' as const),
      capacity: countOrZero(12),
      refillPerSecond: fc.oneof(fc.integer({ min: 1, max: 100 }), fc.constantFrom(0.5, 2.5, 1 / 3, 1000 / 7)),
    }),
    fc.record({
      algorithm: fc.constant('token-bucket' as const),
      capacity: fc.integer({ min: 1, max: 12 }),
      refillAmount: fc.integer({ min: 1, max: 5 }),
      refillInterval: periodMs,
    }),
  ),
  'fixed-window': fc.record({
    algorithm: fc.constant('fixed-window' as const),
    limit: countOrZero(12),
    window: fc.oneof({ weight: 4, arbitrary: periodMs }, { weight: 1, arbitrary: fc.constant('forever' as const) }),
  }),
  'warm-up': fc.record(
    {
      algorithm: fc.constant('warm-up' as const),
      rate: fc.oneof(fc.integer({ min: 1, max: 50 }), fc.constantFrom(0.5, 2.5, 3, 7, 1000 / 7)),
      period: periodMs,
      warmup: fc.constantFrom(100, 1000, 3000, 7000, 60_000),
      coldFactor: fc.constantFrom(1, 1.5, 2, 3, 10),
    },
    { requiredKeys: ['algorithm', 'rate', 'period', 'warmup'] },
  ),
  'gcra (reserve)': fc.record({
    algorithm: fc.constant('gcra' as const),
    rate: fc.oneof(fc.integer({ min: 1, max: 50 }), fc.constantFrom(0.5, 2.5, 3, 7, 1000 / 7)),
    period: periodMs,
    burst: fc.integer({ min: 1, max: 12 }),
    mode: fc.constant('reserve' as const),
    maxDelay: fc.constantFrom(1, 99, 250, 1000, 7000),
  }),
  'token-bucket (reserve)': fc.record({
    algorithm: fc.constant('token-bucket' as const),
    capacity: fc.integer({ min: 1, max: 12 }),
    refillPerSecond: fc.oneof(fc.integer({ min: 1, max: 100 }), fc.constantFrom(0.5, 2.5, 1 / 3, 1000 / 7)),
    mode: fc.constant('reserve' as const),
    maxDelay: fc.constantFrom(1, 99, 250, 1000, 7000),
  }),
  'sliding-window-log': fc.record({
    algorithm: fc.constant('sliding-window-log' as const),
    limit: countOrZero(12),
    window: periodMs,
  }),
  'sliding-window-counter': fc.record({
    algorithm: fc.constant('sliding-window-counter' as const),
    limit: countOrZero(12),
    window: fc.constantFrom(100, 250, 1000, 7000, 60_000, 333, 86_400_000),
  }),
  'leaky-bucket': fc.oneof(
    fc.record({
      algorithm: fc.constant('leaky-bucket' as const),
      rate: fc.oneof(fc.integer({ min: 1, max: 50 }), fc.constantFrom(0.5, 2.5, 1 / 3, 1000 / 7)),
      period: periodMs,
      burst: fc.integer({ min: 1, max: 12 }),
    }),
    fc.record({
      algorithm: fc.constant('leaky-bucket' as const),
      mode: fc.constant('shaping' as const),
      rate: fc.oneof(fc.integer({ min: 1, max: 50 }), fc.constantFrom(0.5, 3, 7, 1000 / 7)),
      period: periodMs,
      maxDelay: fc.constantFrom(1, 100, 333, 1000, 5000),
    }),
  ),
  concurrency: fc.record({
    limit: countOrZero(6),
    leaseTtl: fc.constantFrom(1, 100, 250, 1000, 7000),
  }),
};
const { concurrency, ...consumeSpecs } = randomSpecs satisfies Record<AlgorithmName, fc.Arbitrary<object>>;

/** The random specs of the consume traces, by algorithm (and mode). */
export const specArbitraries: Readonly<Record<string, fc.Arbitrary<LimitSpec>>> = consumeSpecs;

export const concurrencySpecArbitrary = concurrency;

/** Acquires, releases of a lease taken earlier in the trace (`pick` chooses which, maybe already freed), peeks, resets. */
export const concurrencyTraceArbitrary = fc.array(
  fc.oneof(
    {
      weight: 8,
      arbitrary: fc.record({ op: fc.constant('acquire' as const), advanceMs: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 3000 })) }),
    },
    {
      weight: 6,
      arbitrary: fc.record({ op: fc.constant('release' as const), advanceMs: fc.integer({ min: 0, max: 400 }), pick: fc.nat() }),
    },
    { weight: 2, arbitrary: fc.record({ op: fc.constant('peek' as const), advanceMs: fc.integer({ min: 0, max: 400 }) }) },
    { weight: 1, arbitrary: fc.record({ op: fc.constant('reset' as const), advanceMs: fc.integer({ min: 0, max: 400 }) }) },
  ),
  { minLength: 1, maxLength: 30 },
);

/** Mostly consumes, some peeks, refunds, penalties, resets and consumes that may take less (leases); time moves by 0 (simultaneous) up to a few seconds. */
export const stepArbitrary: fc.Arbitrary<TraceStep> = fc.oneof(
  {
    weight: 17,
    arbitrary: fc.record({
      op: fc.constant('consume' as const),
      advanceMs: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 400 }), fc.integer({ min: 0, max: 5000 })),
      cost: fc.oneof({ weight: 4, arbitrary: fc.constant(1) }, { weight: 2, arbitrary: fc.integer({ min: 1, max: 14 }) }),
    }),
  },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('peek' as const), advanceMs: fc.integer({ min: 0, max: 400 }) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('reset' as const), advanceMs: fc.integer({ min: 0, max: 400 }) }) },
  {
    weight: 3,
    arbitrary: fc.record({
      op: fc.constant('refund' as const),
      advanceMs: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 400 })),
      cost: fc.oneof(fc.constant(1), fc.integer({ min: 1, max: 14 })),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant('penalty' as const),
      advanceMs: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 400 })),
      cost: fc.oneof(fc.constant(1), fc.integer({ min: 1, max: 30 })),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.integer({ min: 1, max: 30 }).chain((cost) =>
      fc.record({
        op: fc.constant('lease' as const),
        advanceMs: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 400 })),
        cost: fc.constant(cost),
        minCost: fc.integer({ min: 1, max: cost }),
      }),
    ),
  },
);

export const traceArbitrary = fc.array(stepArbitrary, { minLength: 1, maxLength: 30 });

/** Epoch milliseconds in 2020-2035: real-sized numbers, where precision is at stake. */
export const startArbitrary = fc.integer({ min: Date.UTC(2020, 0, 1), max: Date.UTC(2035, 0, 1) });
