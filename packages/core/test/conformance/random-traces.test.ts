import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type StoreUnderTest, startBackends } from '../helpers/stores.js';
import { playTrace } from '../helpers/trace.js';
import { specArbitraries, startArbitrary, traceArbitrary } from './arbitraries.js';

const RUNS = Number(process.env.CONFORMANCE_RUNS ?? 1000);

let stores: StoreUnderTest[];
let close: () => Promise<void>;

beforeAll(async () => {
  ({ stores, close } = await startBackends());
});
afterAll(() => close?.());

describe.each(Object.keys(specArbitraries))('%s: memory, Redis and Redis Cluster decide alike', (algorithm) => {
  it(`agrees field for field on ${RUNS} random traces`, async () => {
    await fc.assert(
      fc.asyncProperty(specArbitraries[algorithm]!, traceArbitrary, startArbitrary, async (spec, steps, startMs) => {
        const [memory, ...redis] = await Promise.all(stores.map(({ store }) => playTrace(store, spec, steps, startMs)));
        for (const [i, decisions] of redis.entries()) {
          expect(decisions, `${stores[i + 1]!.name} vs memory`).toEqual(memory);
        }
      }),
      { numRuns: RUNS },
    );
  });
});
