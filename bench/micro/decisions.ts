// Decisions per second of @tollgate/core against its peers' stores, in steady state, in one run.
// Every limit admits every request and keeps each identity's state alive from one visit to the
// next; every implementation has already decided once for each identity before it is measured (no
// fresh limiter); the implementations of a scenario take turns, round after round, and each figure
// is the median over rounds, each ratio the median of the per-round ratios (a busy moment hits
// one round of every implementation, not one implementation).
// Memory: one request in flight (sequential `await`), one hot key or 100,000 keys in rotation.
// Redis: 10,000 identities in rotation, a closed loop of 1 to 1000 requests in flight from one
// Node process, against the minimal GCRA script of redis-cost.ts called once per decision.
// Usage: pnpm bench [--duration=2000] [--rounds=3]   (writes results/decisions.json)   (REDIS_URL=redis://… to use your own server)
import os from 'node:os';
import { createLimiter, RedisStore } from '@tollgate/core';
import { RedisProcess } from '@tollgate/testing';
import type { Options as ErlOptions } from 'express-rate-limit';
import { Redis } from 'ioredis';
import { RedisStore as ErlRedisStore, type RedisReply } from 'rate-limit-redis';
import { RateLimiterRedis } from 'rate-limiter-flexible';
import { minimalGcra } from '../minimal-gcra.js';
import { machine, writeResults } from '../results.js';
import { decisionsPerSecond, median, printTable, type Row, runCount } from './measure.js';
import { MEMORY_IMPLEMENTATIONS, TOLLGATE_GCRA } from './memory-implementations.js';

const durationMs = Number(process.argv.find((a) => a.startsWith('--duration='))?.split('=')[1] ?? 2000);
const ROUNDS = Number(process.argv.find((a) => a.startsWith('--rounds='))?.split('=')[1] ?? 3);
const HUGE = 1_000_000_000;
const HOUR_S = 3600;
const MANY_KEYS = Array.from({ length: 100_000 }, (_, i) => `client-${i}`);
const REDIS_KEYS = MANY_KEYS.slice(0, 10_000);
/** Redis closed loops: requests in flight from one Node process. */
const IN_FLIGHT = [1, 10, 100, 1000];
const rows: Row[] = [];

type Op = (i: number) => Promise<unknown>;
interface Implementation {
  name: string;
  op: Op;
}

/**
 * Each implementation decides once for every key, then `ROUNDS` rounds in which they take turns;
 * rows give medians, and each peer's ratio to Tollgate (the first implementation) per round.
 */
async function scenario(name: string, keys: number, inFlight: number, implementations: Implementation[]): Promise<void> {
  // 100 in flight however many the scenario has: one request at a time would take minutes on Redis.
  for (const { op } of implementations) await runCount(op, 100, keys);
  const runs = implementations.map(() => [] as { perSecond: number; perCpuSecond: number }[]);
  for (let round = 0; round < ROUNDS; round++) {
    for (const [at, { op }] of implementations.entries()) runs[at]!.push(await decisionsPerSecond(op, { inFlight, durationMs }));
  }
  const base = runs[0]!;
  for (const [at, { name: implementation }] of implementations.entries()) {
    const own = runs[at]!;
    const ratio = (pick: (run: (typeof own)[number]) => number) => median(own.map((run, round) => pick(run) / pick(base[round]!)));
    rows.push({
      scenario: name,
      implementation,
      opsPerSecond: median(own.map((run) => run.perSecond)),
      opsPerCpuSecond: median(own.map((run) => run.perCpuSecond)),
      ...(at === 0
        ? {}
        : { baseline: implementations[0]!.name, ratio: ratio((run) => run.perSecond), cpuRatio: ratio((run) => run.perCpuSecond) }),
    });
    console.error(`  ${name} / ${implementation}: ${Math.round(rows.at(-1)!.opsPerSecond).toLocaleString('en-US')}/s`);
  }
}

async function memoryScenarios(): Promise<void> {
  for (const [name, keys] of [
    ['memory, 1 hot key', 1],
    ['memory, 100k keys', MANY_KEYS.length],
  ] as const) {
    const implementations = Object.entries(MEMORY_IMPLEMENTATIONS).map(([implementation, make]) => {
      const decide = make();
      return { name: implementation, op: (i: number) => decide(MANY_KEYS[i % keys]!) };
    });
    await scenario(name, keys, 1, implementations);
  }
}

async function redisScenarios(url: string): Promise<void> {
  const client = new Redis(url);
  const key = (i: number) => REDIS_KEYS[i % REDIS_KEYS.length]!;
  // Every decision from Redis: no timeout or breaker a loaded machine could trip into answering by policy.
  const options = { ...TOLLGATE_GCRA, timeout: 60_000, breaker: false, denyCache: false } as const;
  const coalesced = createLimiter({ ...options, store: new RedisStore({ client }), prefix: 'bench' });
  const single = createLimiter({ ...options, store: new RedisStore({ client, maxBatchSize: 1 }), prefix: 'bench1' });
  const rlr = new RateLimiterRedis({ storeClient: client, points: HUGE, duration: HOUR_S, keyPrefix: 'rlr' });
  const erl = new ErlRedisStore({
    sendCommand: (command: string, ...args: string[]) => client.call(command, ...args) as Promise<RedisReply>,
  });
  erl.init({ windowMs: HOUR_S * 1000 } as ErlOptions);
  const minimal = minimalGcra(client);
  for (const inFlight of IN_FLIGHT) {
    await scenario(`redis, ${inFlight} in flight`, REDIS_KEYS.length, inFlight, [
      { name: 'tollgate RedisStore, coalesced', op: (i) => coalesced.consume(key(i)) },
      { name: 'tollgate RedisStore, 1 call/decision', op: (i) => single.consume(key(i)) },
      { name: 'minimal GCRA script (1 call/decision)', op: (i) => minimal(key(i)) },
      { name: 'RateLimiterRedis', op: (i) => rlr.consume(key(i)) },
      { name: 'rate-limit-redis', op: (i) => erl.increment(key(i)) },
    ]);
  }
  client.disconnect();
}

console.error(`node ${process.version}, ${os.cpus().length}× ${os.cpus()[0]?.model}, ${ROUNDS} rounds of ${durationMs} ms per figure`);
await memoryScenarios();
const server = process.env.REDIS_URL ? undefined : await RedisProcess.start();
try {
  await redisScenarios(process.env.REDIS_URL ?? server!.url);
} finally {
  await server?.stop();
}
printTable(rows);
writeResults('decisions', { machine: machine(), durationMs, rounds: ROUNDS, rows });
