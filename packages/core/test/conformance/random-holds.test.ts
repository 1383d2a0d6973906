import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Cost,
  createLimiter,
  type Decision,
  type Hold,
  type Limiter,
  MemoryStore,
  type RuleSpec,
  type Store,
} from '../../src/index.js';
import { STORE_SEMANTICS, type StoreUnderTest, startBackends } from '../helpers/stores.js';
import { callsOf, comparable } from '../helpers/trace.js';
import { specArbitraries, startArbitrary } from './arbitraries.js';

// Holds settled early, late (after the window or period they charged), under or over their
// estimate, cancelled, settled twice or after their TTL: every store decides alike, and exactly as
// the model does, which plays each hold as a consume of its estimate and each settle as a refund
// of that consume's charge (the unused part) or a penalty (the excess).

const RUNS = Number(process.env.CONFORMANCE_RUNS ?? 300);
const TTL_MS = 3000;

type HoldStep =
  | { op: 'consume'; advanceMs: number; cost: number }
  | { op: 'hold'; advanceMs: number; cost: number }
  /** Settles (or cancels, `actual` undefined) the hold opened `pick`-th among those opened before. */
  | { op: 'settle'; advanceMs: number; pick: number; actual: number | undefined };

const advanceMs = fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 400 }), fc.integer({ min: 0, max: 4000 }));
const holdTrace = fc.array(
  fc.oneof(
    { weight: 3, arbitrary: fc.record({ op: fc.constant('consume' as const), advanceMs, cost: fc.integer({ min: 1, max: 4 }) }) },
    { weight: 4, arbitrary: fc.record({ op: fc.constant('hold' as const), advanceMs, cost: fc.integer({ min: 1, max: 8 }) }) },
    {
      weight: 4,
      arbitrary: fc.record({
        op: fc.constant('settle' as const),
        advanceMs,
        pick: fc.nat(),
        actual: fc.option(fc.integer({ min: 0, max: 16 }), { nil: undefined }),
      }),
    },
  ),
  { minLength: 1, maxLength: 30 },
);

/** What a trace's steps ask of a limiter: holds and settles as such, or as the model plays them. */
interface Player {
  consume(cost: number): Promise<Decision>;
  hold(cost: number): Promise<Decision>;
  settle(index: number, actual: number | undefined): Promise<Decision>;
}

/** Holds and settles through `limiter.hold`; costs in `tokens` (the other units cost 1) when `unit` says so. */
function holding(limiter: Limiter, _now?: () => number, unit?: 'tokens'): Player {
  const holds: Hold[] = [];
  const costOf = (amount: number): Cost => (unit === undefined ? amount : { [unit]: amount });
  return {
    consume: (cost) => limiter.consume('client', { cost: costOf(cost) }),
    async hold(cost) {
      const hold = await limiter.hold('client', { cost: costOf(cost), ttl: TTL_MS });
      holds.push(hold);
      return hold.decision;
    },
    settle: (index, actual) => (actual === undefined ? holds[index]!.cancel() : holds[index]!.settle(costOf(actual))),
  };
}

/** The model: a hold is a consume of its estimate; its settle a refund of that charge or a penalty, once, within the TTL. */
function modelled(limiter: Limiter, now: () => number): Player {
  const holds: { decision: Decision; cost: number; open: boolean }[] = [];
  return {
    consume: (cost) => limiter.consume('client', { cost }),
    async hold(cost) {
      const decision = await limiter.consume('client', { cost });
      holds.push({ decision, cost, open: decision.charge !== undefined });
      return { ...decision };
    },
    settle(index, actual = 0) {
      const hold = holds[index]!;
      const open = hold.open && now() < hold.decision.decidedAtMs + TTL_MS;
      hold.open = false;
      if (!open || actual === hold.cost) return limiter.peek('client');
      if (actual < hold.cost) return limiter.refund('client', { charge: hold.decision, cost: hold.cost - actual });
      return callsOf(limiter).penalty('client', actual - hold.cost);
    },
  };
}

let traces = 0;

async function play(
  store: Store,
  rule: RuleSpec,
  steps: readonly HoldStep[],
  startMs: number,
  playerOf: (limiter: Limiter, now: () => number) => Player,
): Promise<Decision[]> {
  let now = startMs;
  const limiter = createLimiter({ ...rule, store, clock: () => now, prefix: `holds${process.pid}-${traces++}`, ...STORE_SEMANTICS });
  const player = playerOf(limiter, () => now);
  const decisions: Decision[] = [];
  let opened = 0;
  for (const step of steps) {
    now += step.advanceMs;
    if (step.op === 'consume') decisions.push(await player.consume(step.cost));
    else if (step.op === 'hold') {
      decisions.push(await player.hold(step.cost));
      opened++;
    } else if (opened === 0) decisions.push(await limiter.peek('client'));
    else decisions.push(await player.settle(step.pick % opened, step.actual));
  }
  return decisions.map(comparable);
}

let stores: StoreUnderTest[];
let close: () => Promise<void>;
beforeAll(async () => {
  ({ stores, close } = await startBackends());
});
afterAll(() => close?.());

/** Rules of 2 or 3 limits of any algorithms: a settle reaches every one of them. */
const multiLimitRule: fc.Arbitrary<RuleSpec> = fc
  .array(fc.oneof(...Object.values(specArbitraries)), { minLength: 2, maxLength: 3 })
  .map((specs) => ({ limits: specs.map((spec, i) => ({ ...spec, name: `limit-${i}` })) }) as RuleSpec);

const rules: [string, fc.Arbitrary<RuleSpec>][] = [
  ...Object.entries(specArbitraries).map(([name, spec]) => [name, spec as fc.Arbitrary<RuleSpec>] as [string, fc.Arbitrary<RuleSpec>]),
  ['multi-limit', multiLimitRule],
];

describe.each(rules)('%s: holds settled early, late, under and over', (_, ruleArbitrary) => {
  it(`memory, Redis and Redis Cluster agree, and with the model of consume, refund and penalty (${RUNS} traces)`, async () => {
    await fc.assert(
      fc.asyncProperty(ruleArbitrary, holdTrace, startArbitrary, async (rule, steps, startMs) => {
        const [memory, ...redis] = await Promise.all(stores.map(({ store }) => play(store, rule, steps, startMs, holding)));
        for (const [i, decisions] of redis.entries()) expect(decisions, `${stores[i + 1]!.name} vs memory`).toEqual(memory);
        expect(memory, 'memory vs the model').toEqual(await play(new MemoryStore(), rule, steps, startMs, modelled));
      }),
      { numRuns: RUNS },
    );
  });
});

/** Rules of 2 or 3 limits, some counting tokens: a settle charges each the amount of its unit. */
const twoUnitRule: fc.Arbitrary<RuleSpec> = fc
  .array(fc.tuple(fc.oneof(...Object.values(specArbitraries)), fc.boolean()), { minLength: 2, maxLength: 3 })
  .map(
    (specs) =>
      ({
        limits: [
          ...specs.map(([spec, tokens], i) => ({ ...spec, name: `limit-${i}`, ...(tokens ? { unit: 'tokens' } : {}) })),
          { name: 'tokens', algorithm: 'fixed-window', limit: 40, window: '1s', unit: 'tokens' },
        ],
      }) as RuleSpec,
  );

describe('rules of requests and tokens: holds in tokens, settled early, late, under and over', () => {
  it(`memory, Redis and Redis Cluster agree (${RUNS} traces)`, async () => {
    await fc.assert(
      fc.asyncProperty(twoUnitRule, holdTrace, startArbitrary, async (rule, steps, startMs) => {
        const inTokens = (limiter: Limiter) => holding(limiter, undefined, 'tokens');
        const [memory, ...redis] = await Promise.all(stores.map(({ store }) => play(store, rule, steps, startMs, inTokens)));
        for (const [i, decisions] of redis.entries()) expect(decisions, `${stores[i + 1]!.name} vs memory`).toEqual(memory);
      }),
      { numRuns: RUNS },
    );
  });
});
