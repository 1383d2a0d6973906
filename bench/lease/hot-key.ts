// One hot key beyond one Redis core: the same rule, with and without a LeasingStore, measured in
// the same run against one redis-server.
//  1. 4 Node processes offer one hot key far more than its limit: Redis script calls and Redis
//     CPU per admitted request (INFO commandstats / INFO cpu), leased vs not, and the ratios; and
//     the units the leases held (charged, not spent: under-admission) against P × maxShare × limit.
//  2. Decisions/s on one hot key in one process, leased vs not.
//  3. One hot key + 100,000 cold keys: the cold keys' Redis calls and CPU per decision, and
//     their decisions, with and without leasing.
// Usage: pnpm bench:lease [--duration=3000] [--in-flight=64] (writes results/lease.json)
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createLimiter, type Decision, LeasingStore, RedisStore, type RuleSpec, type Store } from '@tollgate/core';
import { RedisProcess } from '@tollgate/testing';
import { Redis } from 'ioredis';
import { machine, writeResults } from '../results.js';
import { redisStats, since } from './redis-stats.js';

const arg = (name: string, fallback: number) => Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback);
const DURATION_MS = arg('duration', 3000);
const IN_FLIGHT = arg('in-flight', 64);
const PROCESSES = 4;
const COLD_KEYS = 100_000;
const WORKER = fileURLToPath(new URL('./hot-key-worker.ts', import.meta.url));
/** 20,000 requests/s with a burst of one second's worth: far below what 4 processes offer. */
const HOT_RULE: RuleSpec = { algorithm: 'gcra', rate: 20_000, period: '1s', burst: 20_000 };
/** The LeasingStore's default `maxShare`: the most of the limit (the burst) one process's lease holds. */
const MAX_SHARE = 1 / 16;
/** A loaded machine must not turn a slow answer into the failure mode. */
const PATIENT = { timeout: 60_000, breaker: false } as const;
type Mode = 'redis' | 'leased';

/** What one process reports: its decisions, and the units its leases held (the most sampled, and at the end). */
interface Tally {
  admitted: number;
  decisions: number;
  heldMost: number;
  heldAtEnd: number;
}

interface HotRow extends Tally {
  mode: Mode;
  calls: number;
  cpuMicros: number;
}

/** Part 1: four processes on one hot key for DURATION_MS. */
async function fourProcesses(url: string, client: Redis, mode: Mode): Promise<HotRow> {
  const prefix = `hot-${mode}-${Date.now()}`;
  const workers = Array.from({ length: PROCESSES }, () =>
    fork(WORKER, [url, prefix, mode, JSON.stringify(HOT_RULE), String(DURATION_MS), String(IN_FLIGHT)], {
      execArgv: ['--import', 'tsx'],
    }),
  );
  await Promise.all(workers.map((worker) => new Promise((resolve) => worker.once('message', resolve))));
  const results = workers.map((worker) => new Promise<Tally>((resolve) => worker.once('message', resolve)));
  const before = await redisStats(client);
  for (const worker of workers) worker.send('go');
  const tallies = await Promise.all(results);
  const cost = since(before, await redisStats(client));
  const sum = (field: keyof Tally) => tallies.reduce((total, tally) => total + tally[field], 0);
  return { mode, admitted: sum('admitted'), decisions: sum('decisions'), heldMost: sum('heldMost'), heldAtEnd: sum('heldAtEnd'), ...cost };
}

/** Part 2: decisions/s on one hot key that never denies, one process. */
async function oneProcess(store: Store, mode: Mode): Promise<{ mode: Mode; decisionsPerSecond: number }> {
  const limiter = createLimiter({
    algorithm: 'fixed-window',
    limit: 1e12,
    window: '1h',
    store,
    prefix: `one-${mode}-${Date.now()}`,
    ...PATIENT,
  });
  let decisions = 0;
  const endAt = performance.now() + DURATION_MS;
  const loop = async () => {
    while (performance.now() < endAt) {
      await limiter.consume('hot');
      decisions++;
    }
  };
  const startedAt = performance.now();
  await Promise.all(Array.from({ length: IN_FLIGHT }, loop));
  return { mode, decisionsPerSecond: Math.round(decisions / ((performance.now() - startedAt) / 1000)) };
}

/** The store's operations on identities other than the hot key's: the cold keys' own. */
function countingCold(inner: Store, counts: { cold: number }): Store {
  return {
    execute(operation) {
      if (!operation.identity.includes('hot')) counts.cold++;
      return inner.execute(operation);
    },
  };
}

interface ColdRow {
  mode: Mode;
  /** Alone on Redis: script calls and Redis CPU per cold decision. */
  callsPerDecision: number;
  cpuMicrosPerDecision: number;
  /** With the hot key running alongside: store operations per cold decision. */
  operationsPerDecision: number;
}

/** 100,000 cold keys, 2 requests each (limit 1: the second is refused); `hot` runs a hot key alongside. */
async function coldPass(store: Store, prefix: string, hot: boolean): Promise<Map<string, Decision>> {
  const cold = createLimiter({ algorithm: 'fixed-window', limit: 1, window: '1h', store, prefix, denyCache: false, ...PATIENT });
  const hotLimiter = createLimiter({ ...HOT_RULE, store, prefix: `${prefix}-hot`, ...PATIENT });
  let running = hot;
  const hotLoops = Array.from({ length: 8 }, async () => {
    while (running) await hotLimiter.consume('hot');
  });
  const decisions = new Map<string, Decision>();
  for (let round = 0; round < 2; round++) {
    let next = 0;
    const loop = async () => {
      while (next < COLD_KEYS) {
        const key = `cold-${next++}`;
        decisions.set(`${key}#${round}`, await cold.consume(key));
      }
    };
    await Promise.all(Array.from({ length: IN_FLIGHT }, loop));
  }
  running = false;
  await Promise.all(hotLoops);
  return decisions;
}

/** Part 3, for one mode: cold keys alone (Redis cost), then alongside a hot key (operations, decisions). */
async function coldKeys(client: Redis, mode: Mode): Promise<{ row: ColdRow; decisions: Map<string, Decision> }> {
  // Each mode starts from an empty Redis (the bench's own, never one given by REDIS_URL): keys left by the other make writes dearer.
  if (process.env.REDIS_URL === undefined) await client.flushall();
  const redis = new RedisStore({ client });
  const alone = mode === 'leased' ? new LeasingStore(redis) : redis;
  const before = await redisStats(client);
  await coldPass(alone, `cold-${mode}-${Date.now()}`, false);
  const cost = since(before, await redisStats(client));
  const counts = { cold: 0 };
  const counted = countingCold(redis, counts);
  const store = mode === 'leased' ? new LeasingStore(counted) : counted;
  const decisions = await coldPass(store, `mixed-${mode}-${Date.now()}`, true);
  if (store instanceof LeasingStore) await store.close();
  if (alone instanceof LeasingStore) await alone.close();
  const total = 2 * COLD_KEYS;
  return {
    row: {
      mode,
      callsPerDecision: cost.calls / total,
      cpuMicrosPerDecision: cost.cpuMicros / total,
      operationsPerDecision: counts.cold / total,
    },
    decisions,
  };
}

/** Cold decisions that differ between the two modes (allowed, remaining, source). */
function differences(a: Map<string, Decision>, b: Map<string, Decision>): number {
  let differing = 0;
  for (const [key, decision] of a) {
    const other = b.get(key);
    if (other?.allowed !== decision.allowed || other.remaining !== decision.remaining || other.source !== decision.source) differing++;
  }
  return differing;
}

const ratio = (a: number, b: number) => `${(a / b).toFixed(1)}×`;

const server = process.env.REDIS_URL ? undefined : await RedisProcess.start();
const url = process.env.REDIS_URL ?? server!.url;
const client = new Redis(url);
try {
  console.log(`1. ${PROCESSES} processes × ${IN_FLIGHT} in flight on one hot key for ${DURATION_MS} ms (gcra 20,000/s, burst 20,000)`);
  const hot: HotRow[] = [];
  for (const mode of ['redis', 'leased'] as const) {
    const row = await fourProcesses(url, client, mode);
    hot.push(row);
    console.log(
      `  ${mode.padEnd(7)} admitted ${row.admitted} of ${row.decisions} decisions; ${row.calls} script calls ` +
        `(${(row.calls / row.admitted).toFixed(4)} per admitted), Redis CPU ${(row.cpuMicros / row.admitted).toFixed(3)} µs per admitted`,
    );
  }
  const [plain, leased] = hot as [HotRow, HotRow];
  const callRatio = plain.calls / plain.admitted / (leased.calls / leased.admitted);
  const cpuRatio = plain.cpuMicros / plain.admitted / (leased.cpuMicros / leased.admitted);
  console.log(`  leased: ${callRatio.toFixed(1)}× fewer script calls, ${cpuRatio.toFixed(1)}× less Redis CPU per admitted request`);
  const bound = 20_000 + 20_000 * ((DURATION_MS + 100) / 1000);
  console.log(`  admitted leased / not: ${ratio(leased.admitted, plain.admitted)}; bound (burst + rate × (run + TTL)): ${bound}`);
  const heldBound = PROCESSES * MAX_SHARE * 20_000;
  console.log(
    `  held by leases (charged, not spent): ${leased.heldAtEnd} units at the end, at most ${leased.heldMost} ` +
      `(sum of each process's most, sampled every 256 decisions); bound P × maxShare × limit = ${heldBound}`,
  );

  console.log(`2. One process, ${IN_FLIGHT} in flight, one hot key that never denies, for ${DURATION_MS} ms`);
  const one = [await oneProcess(new RedisStore({ client }), 'redis')];
  const leasing = new LeasingStore(new RedisStore({ client }));
  one.push(await oneProcess(leasing, 'leased'));
  await leasing.close();
  for (const row of one) console.log(`  ${row.mode.padEnd(7)} ${row.decisionsPerSecond.toLocaleString('en')} decisions/s`);
  console.log(`  leased: ${ratio(one[1]!.decisionsPerSecond, one[0]!.decisionsPerSecond)} the decisions/s`);

  console.log(`3. ${COLD_KEYS.toLocaleString('en')} cold keys × 2 requests (fixed window, limit 1), alone then beside a hot key`);
  const coldPlain = await coldKeys(client, 'redis');
  const coldLeased = await coldKeys(client, 'leased');
  for (const { row } of [coldPlain, coldLeased]) {
    console.log(
      `  ${row.mode.padEnd(7)} alone: ${row.callsPerDecision.toFixed(4)} script calls, ${row.cpuMicrosPerDecision.toFixed(3)} µs Redis CPU per cold decision; ` +
        `beside the hot key: ${row.operationsPerDecision.toFixed(4)} store operations per cold decision`,
    );
  }
  const differing = differences(coldPlain.decisions, coldLeased.decisions);
  console.log(
    `  leased / not: ${ratio(coldLeased.row.cpuMicrosPerDecision, coldPlain.row.cpuMicrosPerDecision)} the Redis CPU per cold decision; ` +
      `${differing} of ${coldPlain.decisions.size} cold decisions differ`,
  );
  writeResults('lease', {
    machine: machine(),
    durationMs: DURATION_MS,
    inFlight: IN_FLIGHT,
    hot,
    one,
    cold: [coldPlain.row, coldLeased.row],
    differing,
  });
} finally {
  client.disconnect();
  await server?.stop();
}
