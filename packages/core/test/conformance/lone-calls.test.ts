import fc from 'fast-check';
import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { createLimiter, type LimitSpec, RedisStore } from '../../src/index.js';
import { useRedisClient } from '../helpers/per-file-servers.js';
import { STORE_SEMANTICS } from '../helpers/stores.js';
import { comparable } from '../helpers/trace.js';
import { specArbitraries, startArbitrary } from './arbitraries.js';

const RUNS = Number(process.env.CONFORMANCE_RUNS ?? 1000) / 10;

const client = useRedisClient();

/** Consumes of up to 3 units, time moving by 0 (simultaneous) up to a few seconds. */
const consumesArbitrary = fc.array(
  fc.record({ advanceMs: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 3000 })), cost: fc.integer({ min: 1, max: 3 }) }),
  { minLength: 1, maxLength: 20 },
);

let prefixes = 0;

/** The stored state under `prefix` (its only key): the value and how long it lives, or undefined without one. */
async function stateOf(redis: Redis, prefix: string): Promise<{ value: Buffer; ttlMs: number } | undefined> {
  const [key, ...more] = await redis.keys(`${prefix}:*`);
  if (key === undefined) return undefined;
  expect(more).toEqual([]);
  return { value: (await redis.getBuffer(key))!, ttlMs: await redis.pttl(key) };
}

/**
 * A call carrying one consume of a one-limit rule runs the driver's lean path (consume_lone); in a
 * batch of several ops, the same consume runs the generic one (run_ops). Both must answer and
 * write the same.
 */
function limiters(spec: LimitSpec, time: 'client' | 'server', clock: () => number) {
  const store = new RedisStore({ client: client(), time });
  const make = (prefix: string) => createLimiter({ ...spec, store, prefix, clock, ...STORE_SEMANTICS });
  const at = prefixes++;
  const prefixOf = { alone: `lone-${at}`, batched: `batched-${at}` };
  return { prefixOf, alone: make(prefixOf.alone), batched: make(prefixOf.batched), other: make(`other-${at}`) };
}

// A sliding window log keeps a sorted set: its consumes always run the generic path.
const stringStates = Object.keys(specArbitraries).filter((algorithm) => algorithm !== 'sliding-window-log');

describe.each(stringStates)('%s: a consume sent alone and one sent in a batch decide and write alike', (algorithm) => {
  it(`on ${RUNS} random traces, on the client's clock`, async () => {
    await fc.assert(
      fc.asyncProperty(specArbitraries[algorithm]!, consumesArbitrary, startArbitrary, async (spec, steps, startMs) => {
        let now = startMs;
        const { prefixOf, alone, batched, other } = limiters(spec, 'client', () => now);
        const started = Date.now();
        for (const { advanceMs, cost } of steps) {
          now += advanceMs;
          const single = await alone.consume('client', { cost });
          const lone = await stateOf(client(), prefixOf.alone);
          // The same tick: one call of two ops.
          const [inBatch] = await Promise.all([batched.consume('client', { cost }), other.consume('client')]);
          const inCall = await stateOf(client(), prefixOf.batched);
          expect(comparable(inBatch)).toEqual(comparable(single));
          expect(inCall?.value).toEqual(lone?.value);
          // Written the same TTL, both written and read since the trace started.
          if (lone && inCall) expect(Math.abs(inCall.ttlMs - lone.ttlMs)).toBeLessThanOrEqual(Date.now() - started + 1);
        }
      }),
      { numRuns: RUNS },
    );
  });
});

describe("on Redis TIME, a consume sent alone decides on the server's clock", () => {
  it("reports the time it decided on (as its charge's time), and keeps its state as long as one sent in a batch", async () => {
    const spec: LimitSpec = { algorithm: 'gcra', rate: 1, period: '1h', burst: 10 };
    // A limiter's clock far behind Redis TIME: a decision reports the one it decided on.
    const { prefixOf, alone, batched, other } = limiters(spec, 'server', () => Date.UTC(2020, 0, 1));
    const before = Number((await client().time())[0]) * 1000;
    const single = await alone.consume('client');
    const [inBatch] = await Promise.all([batched.consume('client'), other.consume('client')]);
    // A charge is dated on the store's timeline.
    expect(single.charge!.atMs).toBeGreaterThanOrEqual(before);
    expect(single.charge!.atMs).toBeLessThanOrEqual(inBatch!.charge!.atMs);
    const [lone, inCall] = [(await stateOf(client(), prefixOf.alone))!, (await stateOf(client(), prefixOf.batched))!];
    // No slack on Redis TIME: both expire when the limit is full again, an emission interval on.
    expect(Math.max(lone.ttlMs, inCall.ttlMs)).toBeLessThanOrEqual(3_600_000);
    expect(Math.abs(inCall.ttlMs - lone.ttlMs)).toBeLessThan(1000);
  });
});
