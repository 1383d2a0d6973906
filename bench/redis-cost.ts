// Redis CPU per decision, read from INFO commandstats: the time Redis spent inside the script
// calls (FCALL of Tollgate's function library; EVAL/EVALSHA of the script) divided by the decisions they carried. A busy machine hardly moves it,
// unlike throughput. Every algorithm with 1, 2 and 3 limits per rule, the usual qps + perMinute +
// perDay rule, the fixed window with its limit chosen per call among 1, 4 or 64 values, and a
// minimal hand-written GCRA script (one call per decision), in the same run, with 1000 decisions in
// flight; the minimal script and the GCRA rules also with 1, 10 and 100 in flight, where the store
// has fewer decisions (down to one) to put in each script call; and the 1-limit GCRA rule by
// EVALSHA, as a store runs it where FUNCTION is refused (a user denied it), for comparison.
// Usage: pnpm bench:redis-cost [--decisions=20000] [--rounds=5] [--only=<case substring>] [--in-flight=1,10,100,1000]
//        (writes results/redis-cost.json)
import { createLimiter, type LimitSpec, RedisStore, type RuleSpec } from '@tollgate/core';
import { RedisProcess } from '@tollgate/testing';
import { Redis } from 'ioredis';
import { MINIMAL_GCRA_BURST, minimalGcra } from './minimal-gcra.js';
import { machine, writeResults } from './results.js';

const decisions = Number(process.argv.find((a) => a.startsWith('--decisions='))?.split('=')[1] ?? 20_000);
const only = process.argv.find((a) => a.startsWith('--only='))?.split('=')[1];
const IN_FLIGHT = (process.argv.find((a) => a.startsWith('--in-flight='))?.split('=')[1] ?? '1,10,100,1000').split(',').map(Number);
/** Every case runs at the most in flight; below it, only the cases that compare a GCRA decision with the minimal script. */
const BY_SCRIPT = 'gcra, 1 limit, by EVALSHA (FUNCTION refused)';
const AT_EVERY_CONCURRENCY = new Set(['gcra, 1 limit', 'gcra, 3 limits', 'qps + perMinute + perDay (gcra)', BY_SCRIPT]);
const ROUNDS = Number(process.argv.find((a) => a.startsWith('--rounds='))?.split('=')[1] ?? 5);
const IDENTITIES = Array.from({ length: 10_000 }, (_, i) => `client-${i}`);
const BIG = 1_000_000;
/** More requests than any identity receives in a run: every limit below admits them all (the minimal script's burst). */
const BURST = MINIMAL_GCRA_BURST;

/**
 * Like with like: with 10,000 identities in rotation an identity comes back after a whole round
 * of the other cases (a minute or more for the full bench), so every limit here refills over an
 * hour or more: its state is still alive when the identity comes back, and each decision
 * overwrites a live key, as the minimal script (same interval and burst as the 1-limit GCRA
 * rule) does. A 1-limit and a 3-limit rule then differ only in their limits. Shaping and warm-up
 * still write states that expire within milliseconds, so their decisions create their key anew.
 * `i` varies the window so limits differ.
 */
const ALGORITHMS: Record<string, (i: number) => LimitSpec> = {
  gcra: (i) => ({ algorithm: 'gcra', rate: 1, period: `${i + 1}h`, burst: BURST }),
  'token-bucket': (i) => ({ algorithm: 'token-bucket', capacity: BURST, refillAmount: 1, refillInterval: `${i + 1}h` }),
  'fixed-window': (i) => ({ algorithm: 'fixed-window', limit: BIG, window: `${i + 1}h` }),
  'sliding-window-counter': (i) => ({ algorithm: 'sliding-window-counter', limit: BIG, window: `${i + 1}h` }),
  'leaky-bucket (policing)': (i) => ({ algorithm: 'leaky-bucket', rate: 1, period: `${i + 1}h`, burst: BURST }),
  'leaky-bucket (shaping)': (i) => ({ algorithm: 'leaky-bucket', mode: 'shaping', rate: BIG, maxDelay: `${i + 1}s` }),
  'warm-up': (i) => ({ algorithm: 'warm-up', rate: BIG, period: `${i + 1}s`, warmup: '1s' }),
  // A log keeps one member per request in the window: about 10 per identity here.
  'sliding-window-log': (i) => ({ algorithm: 'sliding-window-log', limit: 100_000, window: `${i + 1}s` }),
  concurrency: (i) => ({ algorithm: 'concurrency', limit: BIG, leaseTtl: `${i + 1}m` }),
};
/**
 * The worst case, kept apart: GCRA limits so loose (an emission interval of a few µs) that every
 * state expires about 1 ms after its write, so each decision finds its key expired, and Redis
 * deletes it and creates it again.
 */
const EXPIRING_GCRA = (i: number): LimitSpec => ({ algorithm: 'gcra', rate: BIG, period: `${i + 1}s`, burst: BIG });
/** The usual qps + perMinute + perDay rule, at rates low enough that every limit's state stays alive (see above). */
const DAILY_RULE: RuleSpec = {
  limits: [
    { qps: 1 / 3600, burst: BURST },
    { perMinute: 1 / 60, burst: BURST },
    { perDay: 10, burst: BURST },
  ],
};

export interface CostRow {
  case: string;
  algorithm: string;
  limits: number;
  /** Decisions in flight from the one Node process. */
  inFlight: number;
  /** Script time inside Redis (INFO commandstats). */
  microsPerDecision: number;
  /** Redis main-thread CPU time, call overhead included. */
  cpuMicrosPerDecision: number;
  callsPerDecision: number;
}

interface Stats {
  /** Time spent inside script calls (INFO commandstats, wall clock inside Redis). */
  micros: number;
  calls: number;
  /** CPU time of Redis's main thread (INFO cpu): parsing and replies included, preemption excluded. */
  cpuMicros: number;
}

async function redisStats(client: Redis): Promise<Stats> {
  const info = await client.info('commandstats');
  const cpu = await client.info('cpu');
  let micros = 0;
  let calls = 0;
  for (const match of info.matchAll(/^cmdstat_(?:eval|evalsha|fcall):calls=(\d+),usec=(\d+)/gm)) {
    calls += Number(match[1]);
    micros += Number(match[2]);
  }
  const seconds = (name: string) => Number(cpu.match(new RegExp(`^${name}:([\\d.]+)`, 'm'))?.[1] ?? Number.NaN);
  const cpuMicros = (seconds('used_cpu_user_main_thread') + seconds('used_cpu_sys_main_thread')) * 1e6;
  return { micros, calls, cpuMicros };
}

/** Runs `total` operations, `inFlight` at a time, each on the next identity in rotation. */
async function drive(total: number, inFlight: number, op: (identity: string) => Promise<unknown>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < total) await op(IDENTITIES[next++ % IDENTITIES.length]!);
  };
  await Promise.all(Array.from({ length: inFlight }, worker));
}

/** Resets the stats, then runs `decisions` operations, `inFlight` at a time, and reads what they cost. */
async function measure(client: Redis, inFlight: number, op: (identity: string) => Promise<unknown>): Promise<Stats> {
  await client.config('RESETSTAT');
  const before = await redisStats(client);
  await drive(decisions, inFlight, op);
  const after = await redisStats(client);
  return { micros: after.micros, calls: after.calls, cpuMicros: after.cpuMicros - before.cpuMicros };
}

function limiterOp(client: Redis, rule: RuleSpec, prefix: string): (identity: string) => Promise<unknown> {
  // Every decision must come from Redis: no deny cache, no timeout a loaded machine could hit.
  const limiter = createLimiter({ ...rule, store: new RedisStore({ client }), prefix, timeout: 60_000, breaker: false, denyCache: false });
  // A lease is held until released: every acquire is followed by its release (two operations).
  return async (identity) => {
    const decision = await limiter.consume(identity);
    if (decision.source !== 'store' || !decision.allowed) throw new Error(`${prefix}: not admitted by the store (${decision.source})`);
    if (decision.lease) await limiter.release(decision.lease);
  };
}

/**
 * The 1-limit fixed window with its limit chosen per call (`withLimits`), rotating through
 * `values` distinct limits: a batch then carries up to `values` rules, each sent once.
 */
function chosenPerCallOp(client: Redis, values: number, prefix: string): (identity: string) => Promise<unknown> {
  const limiter = createLimiter({
    ...ALGORITHMS['fixed-window']!(0),
    store: new RedisStore({ client }),
    prefix,
    timeout: 60_000,
    breaker: false,
    denyCache: false,
  });
  let call = 0;
  return async (identity) => {
    const decision = await limiter.withLimits({ limit: BIG - (call++ % values) }).consume(identity);
    if (decision.source !== 'store' || !decision.allowed) throw new Error(`${prefix}: not admitted by the store (${decision.source})`);
  };
}

interface Case {
  name: string;
  algorithm: string;
  limits: number;
  inFlight: number;
  op: (identity: string) => Promise<unknown>;
}

type CaseSpec = Omit<Case, 'inFlight'>;

/** Every case at the most in flight, and those of AT_EVERY_CONCURRENCY (and the minimal script) below it too. */
function atConcurrencies(specs: CaseSpec[]): Case[] {
  const most = Math.max(...IN_FLIGHT);
  return IN_FLIGHT.flatMap((inFlight) =>
    specs
      .filter((c) => inFlight === most || c.algorithm === 'minimal' || AT_EVERY_CONCURRENCY.has(c.name))
      .map((c) => ({ ...c, inFlight })),
  );
}

function cases(client: Redis, scriptClient: Redis): CaseSpec[] {
  const all: CaseSpec[] = [
    { name: 'minimal GCRA script (TIME, GET, SET EX), 1 call per decision', algorithm: 'minimal', limits: 1, op: minimalGcra(client) },
    { name: 'qps + perMinute + perDay (gcra)', algorithm: 'gcra', limits: 3, op: limiterOp(client, DAILY_RULE, 'daily') },
    { name: BY_SCRIPT, algorithm: 'gcra (by EVALSHA)', limits: 1, op: limiterOp(scriptClient, ALGORITHMS.gcra!(0), 'by-script') },
  ];
  for (const values of [1, 4, 64]) {
    const name = `fixed-window, 1 limit chosen per call among ${values} value${values > 1 ? 's' : ''} (withLimits)`;
    all.push({ name, algorithm: 'fixed-window (chosen per call)', limits: 1, op: chosenPerCallOp(client, values, `bench-${all.length}`) });
  }
  const algorithms = { ...ALGORITHMS, 'gcra (state expired at every decision)': EXPIRING_GCRA };
  for (const [algorithm, spec] of Object.entries(algorithms)) {
    for (const limits of [1, 2, 3]) {
      const rule: RuleSpec = limits === 1 ? spec(0) : { limits: Array.from({ length: limits }, (_, i) => ({ ...spec(i), name: `l${i}` })) };
      const name = `${algorithm}, ${limits} limit${limits > 1 ? 's' : ''}`;
      all.push({ name, algorithm, limits, op: limiterOp(client, rule, `bench-${all.length}`) });
    }
  }
  return all;
}

/**
 * Every case once to create its state, then `ROUNDS` rounds over all cases. Time Redis spends
 * preempted by other processes only ever adds, so each case reports its lowest round.
 */
export async function redisCost(url: string): Promise<CostRow[]> {
  const client = new Redis(url);
  await client.acl('SETUSER', 'no-functions', 'on', 'nopass', '~*', '+@all', '-function');
  const scriptClient = new Redis(url, { username: 'no-functions' });
  try {
    const all = atConcurrencies(
      cases(client, scriptClient).filter((c) => c.algorithm === 'minimal' || only === undefined || c.name.includes(only)),
    );
    for (const op of new Set(all.map((c) => c.op))) await drive(IDENTITIES.length * 2, Math.max(...IN_FLIGHT), op);
    const best = new Map<Case, Stats>();
    for (let round = 1; round <= ROUNDS; round++) {
      for (const c of all) {
        const stats = await measure(client, c.inFlight, c.op);
        const kept = best.get(c) ?? stats;
        best.set(c, {
          micros: Math.min(kept.micros, stats.micros),
          calls: stats.calls,
          cpuMicros: Math.min(kept.cpuMicros, stats.cpuMicros),
        });
      }
      console.error(`round ${round}/${ROUNDS} done`);
    }
    return all.map((c) => {
      // An acquire and its release are two operations of one decision.
      const ops = c.algorithm === 'concurrency' ? decisions * 2 : decisions;
      const { micros, calls, cpuMicros } = best.get(c)!;
      return {
        case: c.name,
        algorithm: c.algorithm,
        limits: c.limits,
        inFlight: c.inFlight,
        microsPerDecision: micros / ops,
        cpuMicrosPerDecision: cpuMicros / ops,
        callsPerDecision: calls / ops,
      };
    });
  } finally {
    client.disconnect();
    scriptClient.disconnect();
  }
}

/** One table per number in flight, each decision compared with the minimal script at the same number. */
export function printCostTable(rows: CostRow[]): void {
  for (const inFlight of new Set(rows.map((row) => row.inFlight))) {
    console.log(`\n${inFlight} in flight\n`);
    printCostRows(rows.filter((row) => row.inFlight === inFlight));
  }
}

function printCostRows(rows: CostRow[]): void {
  const minimal = rows.find((row) => row.algorithm === 'minimal')!;
  const single = new Map(rows.filter((row) => row.limits === 1).map((row) => [row.algorithm, row]));
  const ratio = (value: number, base: number | undefined) => (base ? `${(value / base).toFixed(2)}×` : '');
  console.log(
    '| case | script µs per decision | vs minimal script | vs 1 limit | Redis CPU µs per decision | vs minimal script | vs 1 limit | calls per decision |',
  );
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|');
  for (const row of rows) {
    const one = row.limits > 1 && row.algorithm !== 'minimal' ? single.get(row.algorithm) : undefined;
    const cells = [
      row.case,
      row.microsPerDecision.toFixed(2),
      ratio(row.microsPerDecision, minimal.microsPerDecision),
      ratio(row.microsPerDecision, one?.microsPerDecision),
      row.cpuMicrosPerDecision.toFixed(2),
      ratio(row.cpuMicrosPerDecision, minimal.cpuMicrosPerDecision),
      ratio(row.cpuMicrosPerDecision, one?.cpuMicrosPerDecision),
      row.callsPerDecision.toFixed(3),
    ];
    console.log(`| ${cells.join(' | ')} |`);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const server = process.env.REDIS_URL ? undefined : await RedisProcess.start();
  try {
    const rows = await redisCost(process.env.REDIS_URL ?? server!.url);
    printCostTable(rows);
    writeResults('redis-cost', { machine: machine(), decisions, rounds: ROUNDS, inFlight: IN_FLIGHT, rows });
  } finally {
    await server?.stop();
  }
}
