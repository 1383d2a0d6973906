import { VirtualClock } from '@tollgate/testing';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  createLimiter,
  type Decision,
  LeasingStore,
  type LimitSpec,
  MemoryStore,
  type Store,
  type StoreOperation,
} from '../../src/index.js';
import { STORE_SEMANTICS } from '../helpers/stores.js';
import { type Spend, withinLeaseBound } from './lease-bounds.js';

const RUNS = Number(process.env.CONFORMANCE_RUNS ?? 300);
const periodMs = fc.constantFrom(100, 250, 1000, 7000);
const count = fc.oneof(
  { weight: 1, arbitrary: fc.integer({ min: 0, max: 12 }) },
  { weight: 3, arbitrary: fc.integer({ min: 13, max: 80 }) },
);
const rate = fc.oneof(fc.integer({ min: 1, max: 300 }), fc.constantFrom(0.5, 2.5, 1000 / 7));

/**
 * Random specs of every algorithm a lease serves, with counts large enough for leases to be
 * taken near a window's end and rates fast enough for late spends to matter.
 */
const leasableSpecs: Record<string, fc.Arbitrary<LimitSpec>> = {
  gcra: fc.record({ algorithm: fc.constant('gcra' as const), rate, period: periodMs, burst: fc.integer({ min: 1, max: 40 }) }),
  'token-bucket': fc.record({ algorithm: fc.constant('token-bucket' as const), capacity: count, refillPerSecond: rate }),
  'fixed-window': fc.record({
    algorithm: fc.constant('fixed-window' as const),
    limit: count,
    window: fc.oneof({ weight: 4, arbitrary: periodMs }, { weight: 1, arbitrary: fc.constant('forever' as const) }),
  }),
  'sliding-window-log': fc.record({ algorithm: fc.constant('sliding-window-log' as const), limit: count, window: periodMs }),
  'sliding-window-counter': fc.record({
    algorithm: fc.constant('sliding-window-counter' as const),
    limit: count,
    window: fc.constantFrom(100, 250, 333, 1000, 7000),
  }),
};

/** A step of one simulated process: consumes (several at once: they wait on one lease), a refund of one it was admitted, a sweep. */
type LeaseStep =
  | { op: 'consume'; process: number; advanceMs: number; cost: number; together: number }
  | { op: 'refund'; process: number; advanceMs: number; pick: number }
  | { op: 'sweep'; process: number; advanceMs: number };

const stepArbitrary = (processes: number): fc.Arbitrary<LeaseStep> => {
  const process = fc.nat({ max: processes - 1 });
  // Mostly within a lease's TTL, so leases are spent late and across window ends; now and then a jump.
  const advanceMs = fc.oneof(
    { weight: 2, arbitrary: fc.constant(0) },
    { weight: 6, arbitrary: fc.integer({ min: 0, max: 40 }) },
    { weight: 1, arbitrary: fc.integer({ min: 0, max: 2000 }) },
  );
  return fc.oneof(
    {
      weight: 12,
      arbitrary: fc.record({
        op: fc.constant('consume' as const),
        process,
        advanceMs,
        cost: fc.oneof({ weight: 5, arbitrary: fc.constant(1) }, { weight: 1, arbitrary: fc.integer({ min: 1, max: 4 }) }),
        together: fc.integer({ min: 1, max: 5 }),
      }),
    },
    { weight: 2, arbitrary: fc.record({ op: fc.constant('refund' as const), process, advanceMs, pick: fc.nat() }) },
    { weight: 1, arbitrary: fc.record({ op: fc.constant('sweep' as const), process, advanceMs }) },
  );
};

const scenario = fc.integer({ min: 2, max: 5 }).chain((processes) =>
  fc.record({
    processes: fc.constant(processes),
    ttlMs: fc.constantFrom(5, 30, 90),
    maxShare: fc.constantFrom(0.25, 0.5, 1),
    steps: fc.array(stepArbitrary(processes), { minLength: 30, maxLength: 100 }),
  }),
);

/** The shared store, noting each consume it admitted (the lease charges among them). */
function recording(store: Store, charges: number[]): Store {
  return {
    async execute(operation: StoreOperation) {
      const result = await store.execute(operation);
      if (result.committed) charges.push(result.decidedAtMs!);
      return result;
    },
  };
}

describe.each(Object.keys(leasableSpecs))('%s: processes spending leases never pass the bound of the exact model', (algorithm) => {
  it(`holds on ${RUNS} random traces of 2-5 processes`, async () => {
    let answeredByLeases = 0;
    await fc.assert(
      fc.asyncProperty(leasableSpecs[algorithm]!, scenario, async (spec, { processes, ttlMs, maxShare, steps }) => {
        const clock = new VirtualClock();
        const charges: number[] = [];
        const shared = recording(new MemoryStore({ clock: clock.now }), charges);
        const stores = Array.from(
          { length: processes },
          () => new LeasingStore(shared, { leaseKeys: 'all', ttl: ttlMs, maxShare, clock: clock.now }),
        );
        const limiters = stores.map((store) => createLimiter({ ...(spec as LimitSpec), store, clock: clock.now, ...STORE_SEMANTICS }));
        const admitted: Decision[][] = stores.map(() => []);
        const spends: Spend[] = [];
        const ids = new Map<Decision, number>();
        for (const step of steps) {
          clock.advance(step.advanceMs);
          const limiter = limiters[step.process]!;
          if (step.op === 'sweep') stores[step.process]!.sweep();
          if (step.op === 'refund') {
            const mine = admitted[step.process]!;
            const decision = mine[step.pick % Math.max(1, mine.length)];
            if (decision !== undefined) {
              const of = ids.get(decision);
              await limiter.refund('hot', { charge: decision });
              if (of !== undefined) spends.push({ kind: 'refund', of, atMs: clock.now() });
              ids.delete(decision);
            }
          }
          if (step.op !== 'consume') continue;
          const decisions = await Promise.all(Array.from({ length: step.together }, () => limiter.consume('hot', { cost: step.cost })));
          for (const decision of decisions) {
            if (decision.source === 'lease') answeredByLeases++;
            if (!decision.allowed) continue;
            admitted[step.process]!.push(decision);
            ids.set(decision, spends.length);
            spends.push({ kind: 'spend', id: spends.length, atMs: clock.now(), cost: step.cost, chargedAtMs: decision.charge!.atMs });
          }
        }
        await Promise.all(stores.map((store) => store.close()));
        const verdict = withinLeaseBound(limiters[0]!.limits[0]!, spends, charges, ttlMs);
        expect(verdict, verdict ?? '').toBeUndefined();
      }),
      { numRuns: RUNS },
    );
    // The traces exercise leases, not only the store.
    expect(answeredByLeases).toBeGreaterThan(RUNS);
  });
});
