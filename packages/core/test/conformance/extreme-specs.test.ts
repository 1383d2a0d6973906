import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_SPAN_MS } from '../../src/algorithms/fields.js';
import type { Decision, LimitSpec } from '../../src/index.js';
import { type StoreUnderTest, startBackends } from '../helpers/stores.js';
import { playTrace, type TraceStep } from '../helpers/trace.js';

let backends: StoreUnderTest[];
let close: () => Promise<void>;

beforeAll(async () => {
  ({ stores: backends, close } = await startBackends());
});
afterAll(() => close?.());

const MAX_SAFE = Number.MAX_SAFE_INTEGER;

/** Specs at the edge of what validation accepts: the tiniest rates, the longest spans, the largest limits. */
const EDGE_SPECS: [string, LimitSpec, number][] = [
  ['gcra, one per 50 years', { algorithm: 'gcra', rate: 1, period: MAX_SPAN_MS }, MAX_SAFE],
  ['gcra, one per microsecond', { qps: 1e6 }, MAX_SAFE],
  [
    'gcra reserve, the longest wait',
    { algorithm: 'gcra', rate: 1, period: MAX_SPAN_MS / 2, mode: 'reserve', maxDelay: MAX_SPAN_MS },
    MAX_SAFE,
  ],
  [
    'token bucket, one token per 50 years',
    { algorithm: 'token-bucket', capacity: 1, refillAmount: 1, refillInterval: MAX_SPAN_MS },
    MAX_SAFE,
  ],
  [
    'token bucket, the largest capacity',
    { algorithm: 'token-bucket', capacity: Math.floor(MAX_SAFE / 1000), refillPerSecond: 1e6 },
    MAX_SAFE,
  ],
  ['fixed window, the largest limit', { algorithm: 'fixed-window', limit: MAX_SAFE, window: MAX_SPAN_MS }, MAX_SAFE],
  ['sliding-window counter, 50 years', { algorithm: 'sliding-window-counter', limit: 1, window: MAX_SPAN_MS }, MAX_SAFE],
  ['sliding-window log, the largest limit', { algorithm: 'sliding-window-log', limit: 100_000, window: MAX_SPAN_MS }, 100_001],
  ['warm-up, the coldest', { algorithm: 'warm-up', rate: 1, period: MAX_SPAN_MS / 10, warmup: MAX_SPAN_MS, coldFactor: 10 }, MAX_SAFE],
  ['leaky bucket, one per 50 years', { algorithm: 'leaky-bucket', rate: 1, period: MAX_SPAN_MS }, MAX_SAFE],
  ['leaky bucket shaping, the longest queue', { algorithm: 'leaky-bucket', mode: 'shaping', rate: 1e6, maxDelay: MAX_SPAN_MS }, MAX_SAFE],
];

const DAY = 86_400_000;

function trace(bigCost: number): TraceStep[] {
  return [
    { op: 'consume', advanceMs: 0, cost: 1 },
    { op: 'consume', advanceMs: 0, cost: bigCost },
    { op: 'consume', advanceMs: 0, cost: 1 },
    { op: 'peek', advanceMs: 1 },
    { op: 'consume', advanceMs: DAY, cost: 1 },
    { op: 'refund', advanceMs: 0, cost: 1 },
    { op: 'refund', advanceMs: 0, cost: bigCost },
    { op: 'consume', advanceMs: 365 * DAY, cost: 2 },
  ];
}

function expectSound(decision: Decision, where: string): void {
  expect(decision.source, where).toBe('store');
  for (const field of ['limit', 'remaining', 'resetAfterMs', 'retryAfterMs', 'delayMs'] as const) {
    const value = decision[field];
    expect(Number.isNaN(value), `${where}: ${field} is ${value}`).toBe(false);
    expect(value === Number.POSITIVE_INFINITY || Number.isSafeInteger(value), `${where}: ${field} is ${value}`).toBe(true);
    expect(value, `${where}: ${field}`).toBeGreaterThanOrEqual(0);
  }
}

describe.each(EDGE_SPECS)('%s', (_label, spec, bigCost) => {
  it('answers from every store with whole numbers, never NaN, and the stores agree', async () => {
    const start = Date.UTC(2026, 5, 1, 12);
    const results = await Promise.all(backends.map((b) => playTrace(b.store, spec, trace(bigCost), start)));
    for (const [i, decisions] of results.entries()) {
      for (const [step, decision] of decisions.entries()) expectSound(decision, `${backends[i]!.name} step ${step}`);
    }
    expect(results[0]![0]!.allowed).toBe(true);
    expect(results[1]).toEqual(results[0]);
    expect(results[2]).toEqual(results[0]);
  });
});
