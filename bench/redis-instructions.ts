// Redis instructions per decision, which callgrind counts alike however busy the machine is: a
// redis-server under `valgrind --tool=callgrind --instr-atstart=no`, the minimal GCRA script
// (minimal-gcra.ts) against Tollgate's 1-limit GCRA rule (FCALL, and by EVALSHA as on Redis 6),
// states alive as in redis-cost.ts (rate 1 an hour, burst 10,000, 10,000 identities in rotation),
// at 1 and 10 decisions in flight, with the script calls per decision. Each case is warmed up
// uninstrumented, then WINDOWS windows of WINDOW decisions are each dumped, the first dropped, the
// rest averaged.
// Usage: pnpm --filter @tollgate/bench bench:redis-instructions [--in-flight=1,10]
//        (BENCH_WINDOW, BENCH_WINDOWS; writes results/redis-instructions.json)
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLimiter, RedisStore } from '@tollgate/core';
import { findFreePort } from '@tollgate/testing';
import { Redis } from 'ioredis';
import { callgrindArgs, countPerUnit } from './callgrind.js';
import { MINIMAL_GCRA_BURST, minimalGcra } from './minimal-gcra.js';
import { machine, writeResults } from './results.js';

const WINDOW = Number(process.env.BENCH_WINDOW ?? 2_000);
const WINDOWS = Number(process.env.BENCH_WINDOWS ?? 4);
const IN_FLIGHT = (process.argv.find((a) => a.startsWith('--in-flight='))?.split('=')[1] ?? '1,10').split(',').map(Number);
const IDENTITIES = Array.from({ length: 10_000 }, (_, i) => `client-${i}`);

type Op = (identity: string) => Promise<unknown>;

/** Runs `total` operations, `inFlight` at a time, each on the next identity in rotation (carried from run to run). */
function driver(op: Op, inFlight: number): (total: number) => Promise<void> {
  let next = 0;
  return async (total) => {
    let left = total;
    const worker = async () => {
      while (left > 0) {
        left -= 1;
        await op(IDENTITIES[next++ % IDENTITIES.length]!);
      }
    };
    await Promise.all(Array.from({ length: inFlight }, worker));
  };
}

function gcraOp(client: Redis): Op {
  const limiter = createLimiter({
    algorithm: 'gcra',
    rate: 1,
    period: '1h',
    burst: MINIMAL_GCRA_BURST,
    store: new RedisStore({ client }),
    timeout: 600_000,
    breaker: false,
    denyCache: false,
  });
  return async (identity) => {
    const decision = await limiter.consume(identity);
    if (decision.source !== 'store' || !decision.allowed) throw new Error(`not admitted by the store (${decision.source})`);
  };
}

async function startCallgrindRedis(outDir: string): Promise<{ child: ChildProcess; url: string }> {
  const port = await findFreePort();
  // hz 1: serverCron's work (its memory stats are costly under valgrind) grows with the wall time a
  // window takes, not with its decisions; at the default 10 it adds thousands per decision.
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', outDir, '--hz', '1'];
  const child = spawn('valgrind', [...callgrindArgs(outDir), 'redis-server', ...args], { stdio: 'ignore' });
  const url = `redis://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    const probe = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    probe.on('error', () => {});
    try {
      await probe.connect();
      if ((await probe.ping()) === 'PONG') return { child, url };
    } catch {
      // not up yet
    } finally {
      probe.disconnect();
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  child.kill();
  throw new Error('redis-server under callgrind did not answer within 60 s');
}

interface Row {
  case: string;
  inFlight: number;
  instructions: number;
  /** Script calls (FCALL, EVALSHA) per decision: below 1, calls carried several. */
  callsPerDecision: number;
}

/** Script calls Redis ran since its stats were last reset. */
async function scriptCalls(redis: Redis): Promise<number> {
  const info = await redis.info('commandstats');
  return [...info.matchAll(/^cmdstat_(?:evalsha|fcall):calls=(\d+)/gm)].reduce((sum, match) => sum + Number(match[1]), 0);
}

const outDir = mkdtempSync(join(tmpdir(), 'tollgate-redis-callgrind-'));
const { child, url } = await startCallgrindRedis(outDir);
const client = new Redis(url);
const rows: Row[] = [];
try {
  await client.acl('SETUSER', 'no-functions', 'on', 'nopass', '~*', '+@all', '-function');
  const scriptClient = new Redis(url, { username: 'no-functions' });
  const cases: [string, Op][] = [
    ['minimal GCRA script (EVALSHA)', minimalGcra(client)],
    ['Tollgate GCRA, 1 limit (FCALL)', gcraOp(client)],
    ['Tollgate GCRA, 1 limit (by EVALSHA)', gcraOp(scriptClient)],
  ];
  for (const inFlight of IN_FLIGHT) {
    for (const [name, op] of cases) {
      // The first run creates every identity's state; the counted ones overwrite live states.
      const run = driver(op, inFlight);
      const window = { warmup: IDENTITIES.length, window: WINDOW, windows: WINDOWS };
      await client.config('RESETSTAT');
      const instructions = await countPerUnit(child.pid!, outDir, run, window, `${name}, ${inFlight} in flight`);
      const decisions = window.warmup + WINDOW * WINDOWS;
      rows.push({ case: name, inFlight, instructions, callsPerDecision: (await scriptCalls(client)) / decisions });
    }
  }
  scriptClient.disconnect();
} finally {
  client.disconnect();
  child.kill('SIGTERM');
  await new Promise((resolve) => child.once('exit', resolve));
}

console.log('| in flight | case | Redis instructions per decision | vs minimal script | script calls per decision |');
console.log('| ---: | --- | ---: | ---: | ---: |');
for (const row of rows) {
  const minimal = rows.find((r) => r.inFlight === row.inFlight)!.instructions;
  const cells = [
    row.inFlight,
    row.case,
    Math.round(row.instructions).toLocaleString('en'),
    `${(row.instructions / minimal).toFixed(2)}×`,
    row.callsPerDecision.toFixed(3),
  ];
  console.log(`| ${cells.join(' | ')} |`);
}
writeResults('redis-instructions', { machine: machine(), window: WINDOW, windows: WINDOWS, rows });
