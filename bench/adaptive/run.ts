// The overload experiment: a service of known capacity (simulate.ts) driven open-loop at 0.5× to
// 10× its capacity, with no limiter, fixed concurrency limits (well and badly tuned) and Tollgate's
// adaptive limiter (each algorithm, and with priorities); then a ramp from 0.5× to 10×, whose
// limit and latency over time bench/charts draws. Virtual time: the same figures on any machine.
// Usage: pnpm bench:adaptive (writes bench/results/adaptive.json)
import { type AdaptiveLimiterOptions, createAdaptiveLimiter } from '@tollgate/core';
import { writeResults } from '../results.js';
import { CAPACITY, type Outcome, type Priority, type RunOptions, seededRandom, simulate } from './simulate.js';

/** A setup builds its limiter's options for each run; Vegas draws its probe jitter from `random`, seeded for repeatable figures. */
type Setup = {
  name: string;
  options: ((random: () => number) => AdaptiveLimiterOptions<Priority>) | undefined;
  /** Critical traffic of this setup's runs, as a multiple of capacity. Default CRITICAL. */
  critical?: number;
};

const PRIORITIES = { partitions: { critical: 0.8, batch: 0.2 }, partition: (priority: Priority) => priority };

export const SETUPS: Setup[] = [
  { name: 'no limiter', options: undefined },
  { name: 'fixed 10 (tuned)', options: () => ({ limit: 10 }) },
  { name: 'fixed 100 (too high)', options: () => ({ limit: 100 }) },
  { name: 'fixed 4 (too low)', options: () => ({ limit: 4 }) },
  { name: 'gradient2', options: () => ({ limit: { algorithm: 'gradient2', minLimit: 1, initialLimit: 20 } }) },
  { name: 'vegas', options: (random) => ({ limit: { algorithm: 'vegas', random } }) },
  { name: 'aimd (timeout 30 ms)', options: () => ({ limit: { algorithm: 'aimd', minLimit: 1, initialLimit: 20, timeoutMs: 30 } }) },
  { name: 'vegas + priorities', options: (random) => ({ limit: { algorithm: 'vegas', random }, ...PRIORITIES }) },
  {
    name: 'vegas + priorities, critical 0.1×',
    options: (random) => ({ limit: { algorithm: 'vegas', random }, ...PRIORITIES }),
    critical: 0.1,
  },
];

const LOADS = [0.5, 1, 2, 5, 10];
/** Critical traffic, as a multiple of capacity: the rest of each load is batch. */
const CRITICAL = 0.3;

function runOne(setup: Setup, options: RunOptions): Outcome {
  return simulate(
    (clock) =>
      setup.options === undefined ? undefined : createAdaptiveLimiter({ ...setup.options(seededRandom(options.seed + 1)), clock }),
    options,
  );
}

const steady = (factor: number, critical = CRITICAL): RunOptions => ({
  durationMs: 30_000,
  warmupMs: 10_000,
  factorAt: () => factor,
  critical: Math.min(critical, factor),
  seed: 26,
  traceEveryMs: 1000,
});

const round = (value: number, digits = 1) => Number(value.toFixed(digits));

const rows = SETUPS.flatMap((setup) =>
  LOADS.map((load) => {
    const result = runOne(setup, steady(load, setup.critical));
    return {
      setup: setup.name,
      load,
      goodput: Math.round(result.goodput),
      goodputShare: round(result.goodput / CAPACITY, 3),
      p50Ms: round(result.p50),
      p99Ms: round(result.p99),
      rejectedShare: round(result.rejectedShare, 3),
      criticalSuccess: round(result.success.critical, 4),
      batchSuccess: round(result.success.batch, 4),
    };
  }),
);

const ramp: RunOptions = {
  durationMs: 60_000,
  warmupMs: 0,
  factorAt: (now) => 0.5 + (9.5 * now) / 60_000,
  critical: CRITICAL,
  seed: 26,
  traceEveryMs: 1000,
};
const rampTraces = SETUPS.map((setup) => ({ setup: setup.name, trace: runOne(setup, ramp).trace }));

console.log(`service: capacity ${CAPACITY} requests/s; client timeout 1 s; critical traffic ${CRITICAL}× capacity, the rest batch`);
console.table(
  rows.map((row) => ({
    setup: row.setup,
    load: `${row.load}×`,
    'goodput/s': row.goodput,
    '% capacity': `${(row.goodputShare * 100).toFixed(1)}`,
    'p50 ms': row.p50Ms,
    'p99 ms': row.p99Ms,
    rejected: `${(row.rejectedShare * 100).toFixed(1)}%`,
    critical: `${(row.criticalSuccess * 100).toFixed(2)}%`,
    batch: `${(row.batchSuccess * 100).toFixed(2)}%`,
  })),
);
writeResults('adaptive', { capacity: CAPACITY, rows, ramp: rampTraces });
