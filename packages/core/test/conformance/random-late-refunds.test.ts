import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLimiter, type Decision, type LimitSpec, MemoryStore } from '../../src/index.js';
import { STORE_SEMANTICS, type StoreUnderTest, startBackends } from '../helpers/stores.js';
import { chargeIndex, playTrace, type TraceStep } from '../helpers/trace.js';
import { specArbitraries, startArbitrary } from './arbitraries.js';

// Refunds of charges arriving at any time, late ones included: the stores agree, and what is
// admitted never exceeds what the rule admits had every refunded request never been made.

const RUNS = Number(process.env.CONFORMANCE_RUNS ?? 300);

const advanceMs = fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 400 }), fc.integer({ min: 0, max: 3000 }));
const lateRefundTrace = fc.array(
  fc.oneof(
    {
      weight: 6,
      arbitrary: fc.record({
        op: fc.constant('consume' as const),
        advanceMs,
        cost: fc.oneof({ weight: 4, arbitrary: fc.constant(1) }, { weight: 1, arbitrary: fc.integer({ min: 1, max: 4 }) }),
      }),
    },
    { weight: 3, arbitrary: fc.record({ op: fc.constant('refund-charge' as const), advanceMs, pick: fc.nat() }) },
  ),
  { minLength: 1, maxLength: 30 },
);

let stores: StoreUnderTest[];
let close: () => Promise<void>;

beforeAll(async () => {
  ({ stores, close } = await startBackends());
});
afterAll(() => close?.());

describe.each(Object.keys(specArbitraries))('%s: refunds of charges, late ones included', (algorithm) => {
  it(`memory, Redis and Redis Cluster agree, and never admit more than without the refunded requests (${RUNS} traces)`, async () => {
    await fc.assert(
      fc.asyncProperty(specArbitraries[algorithm]!, lateRefundTrace, startArbitrary, async (spec, steps, startMs) => {
        const [memory, ...redis] = await Promise.all(stores.map(({ store }) => playTrace(store, spec, steps, startMs)));
        for (const [i, decisions] of redis.entries()) {
          expect(decisions, `${stores[i + 1]!.name} vs memory`).toEqual(memory);
        }
        await expectWithinModel(spec, steps, memory!, startMs);
      }),
      { numRuns: RUNS },
    );
  });
});

/**
 * The admitted consumes that were never refunded must fit the rule on their own: replayed alone at
 * their times, every one is admitted. A fixed window is anchored on its first request, which a
 * replay would move: there, the kept consumes of each window the store opened fit its limit.
 * Warm-up gives nothing back, and its cost depends on idle time both ways: not modelled.
 */
async function expectWithinModel(spec: LimitSpec, steps: readonly TraceStep[], decisions: readonly Decision[], startMs: number) {
  const algorithm = 'algorithm' in spec ? spec.algorithm : 'gcra';
  if (algorithm === 'warm-up') return;
  const refunded = new Set(steps.map((_, i) => chargeIndex(steps, decisions, i)));
  let now = startMs;
  const kept: { atMs: number; cost: number; decision: Decision }[] = [];
  for (const [i, step] of steps.entries()) {
    now += step.advanceMs;
    if (step.op === 'consume' && decisions[i]!.allowed && !refunded.has(i)) {
      kept.push({ atMs: now, cost: step.cost, decision: decisions[i]! });
    }
  }
  if (algorithm === 'fixed-window') {
    const perWindow = new Map<number, number>();
    for (const { cost, decision } of kept) {
      const endMs = decision.decidedAtMs + decision.resetAfterMs;
      perWindow.set(endMs, (perWindow.get(endMs) ?? 0) + cost);
    }
    for (const units of perWindow.values()) expect(units).toBeLessThanOrEqual(decisions[0]!.limit);
    return;
  }
  let clock = startMs;
  const model = createLimiter({ ...spec, store: new MemoryStore(), clock: () => clock, ...STORE_SEMANTICS });
  for (const { atMs, cost } of kept) {
    clock = atMs;
    expect((await model.consume('client', { cost })).allowed, `the kept consume at +${atMs - startMs} ms`).toBe(true);
  }
}
