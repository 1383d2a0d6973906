import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RuleSpec } from '../../src/index.js';
import { type StoreUnderTest, startBackends } from '../helpers/stores.js';
import { playTrace } from '../helpers/trace.js';
import { specArbitraries, startArbitrary, traceArbitrary } from './arbitraries.js';

const RUNS = Number(process.env.CONFORMANCE_RUNS ?? 1000);

/** Rules of 2 or 3 limits of any algorithms, so consumes are all-or-nothing and refunds reach every limit. */
const ruleArbitrary: fc.Arbitrary<RuleSpec> = fc
  .array(fc.oneof(...Object.values(specArbitraries)), { minLength: 2, maxLength: 3 })
  .map((specs) => ({ limits: specs.map((spec, i) => ({ ...spec, name: `limit-${i}` })) }) as RuleSpec);

let stores: StoreUnderTest[];
let close: () => Promise<void>;

beforeAll(async () => {
  ({ stores, close } = await startBackends());
});
afterAll(() => close?.());

describe('multi-limit rules: memory, Redis and Redis Cluster decide alike', () => {
  it(`agrees field for field on ${RUNS} random traces`, async () => {
    await fc.assert(
      fc.asyncProperty(ruleArbitrary, traceArbitrary, startArbitrary, async (rule, steps, startMs) => {
        const [memory, ...redis] = await Promise.all(stores.map(({ store }) => playTrace(store, rule, steps, startMs)));
        for (const [i, decisions] of redis.entries()) {
          expect(decisions, `${stores[i + 1]!.name} vs memory`).toEqual(memory);
        }
      }),
      { numRuns: RUNS },
    );
  });
});
