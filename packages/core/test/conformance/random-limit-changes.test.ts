import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALGORITHMS, createLimiter, type Decision, type LimitSpec, type LimitValues, type Store } from '../../src/index.js';
import { perCallFields } from '../../src/limit-values.js';
import { STORE_SEMANTICS, type StoreUnderTest, startBackends } from '../helpers/stores.js';
import { callsOf, comparable, type TraceStep } from '../helpers/trace.js';
import { specArbitraries, startArbitrary, stepArbitrary } from './arbitraries.js';

// A client whose limit changes under its live state (`withLimits`: a plan upgraded, a tenant's
// quota lowered) keeps its state, whatever the algorithm: no store throws, the stores decide
// alike, and no decision reports more left than the limit it was made under. Algorithms whose
// state lives as long as its values say (`ttlDependsOnValues`) are compared Redis against
// Cluster: under a virtual clock Redis holds every state, the memory store drops one at its TTL,
// and a state read past it under other values is no state only in the memory store.

const RUNS = Number(process.env.CONFORMANCE_RUNS ?? 1000) / 4;

/** Another spec's counts and rates, for the fields `spec` writes: values a limit may change to under its state. */
function otherValues(spec: LimitSpec, other: LimitSpec): Record<string, number> {
  const mine = spec as unknown as Record<string, unknown>;
  const theirs = other as unknown as Record<string, unknown>;
  const values: Record<string, number> = {};
  for (const field of Object.keys(perCallFields(mine))) {
    if (typeof mine[field] === 'number' && typeof theirs[field] === 'number') values[field] = theirs[field];
  }
  return values;
}

type Step = TraceStep & { variant: number };
const changingSteps = fc.array(
  stepArbitrary.chain((step) => fc.nat({ max: 2 }).map((variant) => ({ ...step, variant }))),
  { minLength: 1, maxLength: 30 },
);

let traces = 0;

async function play(store: Store, spec: LimitSpec, variants: LimitValues[], steps: readonly Step[], startMs: number): Promise<Decision[]> {
  let now = startMs;
  const base = createLimiter({ ...spec, store, clock: () => now, prefix: `changes${process.pid}-${traces++}`, ...STORE_SEMANTICS });
  const limiters = [base, ...variants.map((values) => base.withLimits(values))];
  const decisions: Decision[] = [];
  for (const step of steps) {
    now += step.advanceMs;
    const limiter = limiters[step.variant % limiters.length]!;
    if (step.op === 'consume') decisions.push(comparable(await limiter.consume('client', { cost: step.cost })));
    else if (step.op === 'peek') decisions.push(await limiter.peek('client'));
    else if (step.op === 'refund') decisions.push(await limiter.refund('client', { cost: step.cost }));
    else if (step.op === 'penalty') decisions.push(await callsOf(limiter).penalty('client', step.cost));
    else decisions.push(await limiter.reset('client'));
  }
  return decisions;
}

let stores: StoreUnderTest[];
let close: () => Promise<void>;
beforeAll(async () => {
  ({ stores, close } = await startBackends());
});
afterAll(() => close?.());

describe.each(Object.keys(specArbitraries))('%s: values changing under a live state', (algorithm) => {
  const arbitrary = specArbitraries[algorithm]!;
  const comparedWith = ALGORITHMS.get(algorithm.split(' ')[0]!)!.ttlDependsOnValues ? 'redis' : 'memory';
  it(`keeps every store deciding alike, within the limit in force, on ${RUNS} random traces`, async () => {
    await fc.assert(
      fc.asyncProperty(arbitrary, arbitrary, arbitrary, changingSteps, startArbitrary, async (spec, first, second, steps, startMs) => {
        const variants = [otherValues(spec, first), otherValues(spec, second)];
        const played = await Promise.all(stores.map(({ store }) => play(store, spec, variants, steps, startMs)));
        for (const decision of played.flat()) {
          expect(decision.remaining).toBeGreaterThanOrEqual(0);
          for (const part of decision.limits) expect(part.remaining).toBeLessThanOrEqual(part.limit);
        }
        const reference = stores.findIndex(({ name }) => name === comparedWith);
        for (const [i, decisions] of played.entries()) {
          if (i > reference) expect(decisions, `${stores[i]!.name} vs ${comparedWith}`).toEqual(played[reference]);
        }
      }),
      { numRuns: RUNS },
    );
  });
});
