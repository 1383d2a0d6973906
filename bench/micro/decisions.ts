// Decisions per second of @tollgate/core against rate-limiter-flexible, measured in one run.
// Usage: pnpm bench [--duration=3000]   (writes results/decisions.json)   (REDIS_URL=redis://… to use your own server)
import os from 'node:os';
import { createLimiter, MemoryStore, RedisStore } from '@tollgate/core';
import { RedisProcess } from '@tollgate/testing';
import { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis } from 'rate-limiter-flexible';
import { machine, writeResults } from '../results.js';
import { decisionsPerSecond, printTable, type Row } from './measure.js';

const durationMs = Number(process.argv.find((a) => a.startsWith('--duration='))?.split('=')[1] ?? 3000);
const HUGE = 1_000_000_000;
const MANY_KEYS = Array.from({ length: 100_000 }, (_, i) => `client-${i}`);
const randomKey = () => `client-${Math.floor(Math.random() * 1_000_000)}`;
const rows: Row[] = [];
/** Redis closed loops: requests in flight from one Node process. */
const IN_FLIGHT = [1, 10, 100, 1000];

async function measure(scenario: string, implementation: string, inFlight: number, op: (i: number) => Promise<unknown>, baseline?: string) {
  const { perSecond, perCpuSecond } = await decisionsPerSecond(op, { inFlight, durationMs });
  rows.push({ scenario, implementation, opsPerSecond: perSecond, opsPerCpuSecond: perCpuSecond, baseline });
  console.error(`  ${scenario} / ${implementation}: ${Math.round(perSecond).toLocaleString('en-US')}/s`);
}

async function memoryScenarios() {
  // Limits high enough that every request is admitted: both libraries do their full work.
  const tollgate = () => createLimiter({ algorithm: 'gcra', rate: 1_000_000, period: '1s', burst: HUGE, store: new MemoryStore() });
  const flexible = () => new RateLimiterMemory({ points: HUGE, duration: 60 });
  for (const [scenario, key] of [
    ['memory, 1 hot key', () => 'hot'],
    ['memory, 100k keys', (i: number) => MANY_KEYS[i % MANY_KEYS.length]!],
  ] as const) {
    const rlm = flexible();
    await measure(scenario, 'RateLimiterMemory', 1, (i) => rlm.consume(key(i)));
    const limiter = tollgate();
    await measure(scenario, 'tollgate MemoryStore (gcra)', 1, (i) => limiter.consume(key(i)), 'RateLimiterMemory');
  }
}

async function redisScenarios(url: string) {
  const client = new Redis(url);
  const rawCeiling = new Redis(url);
  rawCeiling.defineCommand('minimalIncr', {
    numberOfKeys: 1,
    lua: "local n = redis.call('INCR', KEYS[1]) if n == 1 then redis.call('PEXPIRE', KEYS[1], 60000) end return n",
  });
  // Every decision from Redis: no timeout or breaker a loaded machine could trip into answering by policy.
  const gcra = {
    algorithm: 'gcra',
    rate: 1_000_000,
    period: '1s',
    burst: HUGE,
    timeout: 60_000,
    breaker: false,
    denyCache: false,
  } as const;
  const coalesced = createLimiter({ ...gcra, store: new RedisStore({ client }), prefix: 'bench' });
  const single = createLimiter({ ...gcra, store: new RedisStore({ client, maxBatchSize: 1 }), prefix: 'bench1' });
  const rlr = new RateLimiterRedis({ storeClient: client, points: HUGE, duration: 60, keyPrefix: 'rlr' });
  const minimal = rawCeiling as unknown as { minimalIncr(key: string): Promise<number> };
  for (const inFlight of IN_FLIGHT) {
    const scenario = `redis, random keys, ${inFlight} in flight`;
    await client.flushdb();
    await measure(scenario, 'RateLimiterRedis', inFlight, () => rlr.consume(randomKey()));
    await measure(scenario, 'minimal EVALSHA (1 call/decision)', inFlight, () => minimal.minimalIncr(randomKey()), 'RateLimiterRedis');
    await measure(scenario, 'tollgate RedisStore, 1 call/decision', inFlight, () => single.consume(randomKey()), 'RateLimiterRedis');
    await measure(scenario, 'tollgate RedisStore, coalesced', inFlight, () => coalesced.consume(randomKey()), 'RateLimiterRedis');
  }
  client.disconnect();
  rawCeiling.disconnect();
}

console.error(`node ${process.version}, ${os.cpus().length}× ${os.cpus()[0]?.model}, ${durationMs} ms per figure`);
await memoryScenarios();
const server = process.env.REDIS_URL ? undefined : await RedisProcess.start();
try {
  await redisScenarios(process.env.REDIS_URL ?? server!.url);
} finally {
  await server?.stop();
}
printTable(rows);
writeResults('decisions', { machine: machine(), durationMs, rows });
