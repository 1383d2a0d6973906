import calculateSlot from 'cluster-key-slot';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLimiter, type Decision, type RuleSpec, type Store } from '../../src/index.js';
import { consumeAll } from '../../src/wait-all.js';
import { STORE_SEMANTICS, type StoreUnderTest, startBackends } from '../helpers/stores.js';
import { comparable } from '../helpers/trace.js';
import { specArbitraries, startArbitrary } from './arbitraries.js';

const RUNS = Number(process.env.CONFORMANCE_RUNS ?? 300);

/** A rule of 1 to 3 limits of any algorithm that can be part of a group (no leases). */
const ruleArbitrary: fc.Arbitrary<RuleSpec> = fc
  .array(fc.oneof(...Object.values(specArbitraries)), { minLength: 1, maxLength: 3 })
  .map((specs) => ({ limits: specs.map((spec, i) => ({ ...spec, name: `limit-${i}` })) }) as RuleSpec);

/** A group consume of both limiters, or a consume of one alone, each after some time. */
interface GroupStep {
  advanceMs: number;
  who: 'both' | 'first' | 'second';
  costs: [number, number];
}
const stepArbitrary: fc.Arbitrary<GroupStep> = fc.record({
  advanceMs: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 400 }), fc.integer({ min: 0, max: 5000 })),
  who: fc.constantFrom('both', 'both', 'first', 'second'),
  costs: fc.tuple(fc.integer({ min: 1, max: 3 }), fc.integer({ min: 1, max: 3 })),
});

const GLOBAL_KEY = 'all';
const TENANT_KEY = 'acme';

let traceCounter = 0;

async function playGroupTrace(
  store: Store,
  rules: [RuleSpec, RuleSpec],
  steps: readonly GroupStep[],
  startMs: number,
): Promise<Decision[][]> {
  let now = startMs;
  // One hash tag in both prefixes: on a Cluster every key of both limiters is in one slot.
  const tag = `{group${process.pid}-${traceCounter++}}`;
  const [tenant, global] = rules.map((rule, i) =>
    createLimiter({ ...rule, store, clock: () => now, prefix: `${tag}:limiter-${i}`, ...STORE_SEMANTICS }),
  );
  const decisions: Decision[][] = [];
  for (const { advanceMs, who, costs } of steps) {
    now += advanceMs;
    if (who === 'first') decisions.push([await tenant!.consume(TENANT_KEY, { cost: costs[0] })]);
    else if (who === 'second') decisions.push([await global!.consume(GLOBAL_KEY, { cost: costs[1] })]);
    else
      decisions.push(
        await consumeAll([
          { limiter: tenant!, key: TENANT_KEY, cost: costs[0] },
          { limiter: global!, key: GLOBAL_KEY, cost: costs[1] },
        ]),
      );
  }
  // A charge's token is unique to its store's run: compared as `comparable`.
  return decisions.map((step) => step.map(comparable));
}

let stores: StoreUnderTest[];
let close: () => Promise<void>;

beforeAll(async () => {
  ({ stores, close } = await startBackends());
});
afterAll(() => close?.());

describe('groups of two limiters (waitAll): memory, Redis and Redis Cluster decide alike', () => {
  it(`agrees field for field on ${RUNS} random traces, all or nothing`, async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.tuple(ruleArbitrary, ruleArbitrary),
        fc.array(stepArbitrary, { minLength: 1, maxLength: 30 }),
        startArbitrary,
        async (rules, steps, startMs) => {
          const [memory, ...redis] = await Promise.all(stores.map(({ store }) => playGroupTrace(store, rules, steps, startMs)));
          for (const [i, decisions] of redis.entries()) {
            expect(decisions, `${stores[i + 1]!.name} vs memory`).toEqual(memory);
          }
          // A group is admitted by both limiters or by neither.
          for (const group of memory!.filter((step) => step.length === 2)) expect(group[0]!.allowed).toBe(group[1]!.allowed);
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('refuses on a Cluster a group whose keys hash to different slots, taking nothing', async () => {
    const { store } = stores.find(({ name }) => name === 'cluster')!;
    const otherKey = ['a', 'b', 'c'].find((key) => calculateSlot(key) !== calculateSlot(GLOBAL_KEY))!;
    const prefix = `group-slots-${process.pid}`;
    const [tenant, global] = [0, 1].map((i) => createLimiter({ qps: 1, burst: 1, store, prefix: `${prefix}-${i}`, ...STORE_SEMANTICS }));
    const group = consumeAll([
      { limiter: tenant!, key: otherKey },
      { limiter: global!, key: GLOBAL_KEY },
    ]);
    await expect(group).rejects.toMatchObject({
      code: 'ERR_TOLLGATE_INVALID_KEY',
      message: expect.stringContaining('one Redis Cluster slot'),
    });
    expect(await global!.peek(GLOBAL_KEY)).toMatchObject({ allowed: true });
  });
});
