// Decisions per second for every algorithm, and what a 3-limit rule costs against a
// single limit, on the memory store and on Redis (coalesced, 1000 in flight), in one run.
// Usage: pnpm bench:algorithms [--duration=2000] [--rule-rounds=5]   (REDIS_URL=redis://… to use your own server)
import { createLimiter, type LimitSpec, MemoryStore, RedisStore, type RuleSpec } from '@tollgate/core';
import { RedisProcess } from '@tollgate/testing';
import { Redis } from 'ioredis';
import { decisionsPerSecond, printTable, type Row } from './measure.js';

const durationMs = Number(process.argv.find((a) => a.startsWith('--duration='))?.split('=')[1] ?? 2000);
const RULE_ROUNDS = Number(process.argv.find((a) => a.startsWith('--rule-rounds='))?.split('=')[1] ?? 5);
const KEYS = Array.from({ length: 10_000 }, (_, i) => `client-${i}`);
const BIG = 1_000_000;

/** Limits loose enough that every request is admitted, so each algorithm does its full work. */
const ALGORITHMS: Record<string, LimitSpec> = {
  gcra: { algorithm: 'gcra', rate: BIG, period: '1s', burst: BIG },
  'token-bucket': { algorithm: 'token-bucket', capacity: BIG, refillPerSecond: BIG },
  'fixed-window': { algorithm: 'fixed-window', limit: BIG, window: '1m' },
  // A log keeps one member per request in the window: about 100 per identity here.
  'sliding-window-log': { algorithm: 'sliding-window-log', limit: 1000, window: '1s' },
  'sliding-window-counter': { algorithm: 'sliding-window-counter', limit: BIG, window: '1m' },
  'leaky-bucket (policing)': { algorithm: 'leaky-bucket', rate: BIG, burst: BIG },
  'leaky-bucket (shaping)': { algorithm: 'leaky-bucket', mode: 'shaping', rate: BIG, maxDelay: '1s' },
  'warm-up': { algorithm: 'warm-up', rate: BIG, period: '1s', warmup: '1s' },
  'concurrency (acquire + release)': { algorithm: 'concurrency', limit: BIG, leaseTtl: '1m' },
};
// The 1-limit rule the 3-limit rule is compared with keeps its state between decisions, as the
// 3-limit rule's entry does (its perDay limit outlives the run); `qps: BIG` alone would expire
// about 1 µs after each write, so each of its decisions would delete and re-create the entry.
const SINGLE: RuleSpec = { perDay: BIG };
const THREE: RuleSpec = { limits: [{ qps: BIG, burst: BIG }, { perMinute: BIG }, { perDay: BIG }] };

type Throughput = Awaited<ReturnType<typeof decisionsPerSecond>>;
let limiters = 0;

/** A fresh limiter on `rule`, consuming for rotating identities; each call of the result measures once. */
function throughputOf(
  implementation: string,
  inFlight: number,
  rule: RuleSpec,
  store: MemoryStore | RedisStore,
): () => Promise<Throughput> {
  // Every decision must come from the store: no deny cache, and no timeout or breaker that a
  // loaded machine could trip into answering by policy without Redis.
  const options = { prefix: `bench-${limiters++}`, timeout: 60_000, breaker: false, denyCache: false } as const;
  const limiter = createLimiter({ ...rule, store, ...options });
  const consume = async (key: string) => {
    const decision = await limiter.consume(key);
    if (decision.source !== 'store' || !decision.allowed) throw new Error(`${implementation}: not admitted by the store`);
    return decision;
  };
  // A concurrency slot is held until released: each operation is an acquire and its release.
  const op =
    'algorithm' in rule && rule.algorithm === 'concurrency'
      ? async (i: number) => {
          const decision = await consume(KEYS[i % KEYS.length]!);
          if (decision.lease) await limiter.release(decision.lease);
        }
      : (i: number) => consume(KEYS[i % KEYS.length]!);
  return () => decisionsPerSecond(op, { inFlight, durationMs });
}

const rows: Row[] = [];
function record(scenario: string, implementation: string, { perSecond, perCpuSecond }: Throughput, baseline?: string): void {
  rows.push({ scenario, implementation, opsPerSecond: perSecond, opsPerCpuSecond: perCpuSecond, baseline });
  console.error(`  ${scenario} / ${implementation}: ${Math.round(perSecond).toLocaleString('en-US')}/s`);
}

/**
 * The 1-limit and the 3-limit rule measured in turn, `RULE_ROUNDS` times each, each keeping its
 * best figures: whichever ran first would otherwise pay for the JIT and the machine's moods alone.
 */
async function compareRules(scenario: string, inFlight: number, store: () => MemoryStore | RedisStore): Promise<void> {
  const single = throughputOf('1-limit rule', inFlight, SINGLE, store());
  const three = throughputOf('3-limit rule', inFlight, THREE, store());
  const best = (kept: Throughput | undefined, now: Throughput): Throughput =>
    kept === undefined
      ? now
      : { perSecond: Math.max(kept.perSecond, now.perSecond), perCpuSecond: Math.max(kept.perCpuSecond, now.perCpuSecond) };
  let singleBest: Throughput | undefined;
  let threeBest: Throughput | undefined;
  for (let round = 0; round < RULE_ROUNDS; round++) {
    singleBest = best(singleBest, await single());
    threeBest = best(threeBest, await three());
  }
  record(scenario, '1-limit rule (perDay)', singleBest!);
  record(scenario, '3-limit rule (qps + perMinute + perDay)', threeBest!, '1-limit rule (perDay)');
}

const server = process.env.REDIS_URL ? undefined : await RedisProcess.start();
const client = new Redis(process.env.REDIS_URL ?? server!.url);
try {
  for (const [scenario, inFlight, store] of [
    ['memory', 1, () => new MemoryStore()],
    ['redis, 1000 in flight', 1000, () => new RedisStore({ client })],
  ] as const) {
    for (const [name, spec] of Object.entries(ALGORITHMS))
      record(scenario, name, await throughputOf(name, inFlight, spec, store())(), 'gcra');
    await compareRules(scenario, inFlight, store);
  }
} finally {
  client.disconnect();
  await server?.stop();
}
printTable(rows);
