import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type StoreUnderTest, startBackends } from '../helpers/stores.js';
import { playTrace, type TraceStep } from '../helpers/trace.js';
import { specArbitraries, startArbitrary, stepArbitrary } from './arbitraries.js';

const RUNS = Number(process.env.CONFORMANCE_RUNS ?? 200);

/** A rule's `blockDuration`: 0 (only `limiter.block` blocks), shorter or longer than its windows. */
const blockDurationArbitrary = fc.constantFrom(0, 100, 999, 7000, 60_000);

/** The random traces' steps, with some `limiter.block` calls among them. */
const blockStep: fc.Arbitrary<TraceStep> = fc.record({
  op: fc.constant('block' as const),
  advanceMs: fc.integer({ min: 0, max: 400 }),
  durationMs: fc.integer({ min: 1, max: 5000 }),
});
const blockingTraceArbitrary = fc.array(fc.oneof({ weight: 12, arbitrary: stepArbitrary }, { weight: 1, arbitrary: blockStep }), {
  minLength: 1,
  maxLength: 30,
});

let stores: StoreUnderTest[];
let close: () => Promise<void>;

beforeAll(async () => {
  ({ stores, close } = await startBackends());
});
afterAll(() => close?.());

describe.each(Object.keys(specArbitraries))('%s with blockDuration: memory, Redis and Redis Cluster block alike', (algorithm) => {
  it(`agrees field for field on ${RUNS} random traces`, async () => {
    await fc.assert(
      fc.asyncProperty(
        specArbitraries[algorithm]!,
        blockDurationArbitrary,
        blockingTraceArbitrary,
        startArbitrary,
        async (spec, blockDuration, steps, startMs) => {
          const rule = { ...spec, blockDuration };
          const [memory, ...redis] = await Promise.all(stores.map(({ store }) => playTrace(store, rule, steps, startMs)));
          for (const [i, decisions] of redis.entries()) {
            expect(decisions, `${stores[i + 1]!.name} vs memory`).toEqual(memory);
          }
        },
      ),
      { numRuns: RUNS },
    );
  }, 120_000);
});
