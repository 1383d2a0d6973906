// Instructions per decision, which callgrind counts alike whatever else the machine runs: the
// `tollgate-server` process per ShouldRateLimit call (1 descriptor, Redis), a gRPC server of the
// same API deciding nothing (floor.ts) per call, and the in-process limiter on the same Redis
// (in-process.ts) per decision; Redis itself is not counted. Each runs under
// `valgrind --tool=callgrind --instr-atstart=no`; WARMUP calls go uninstrumented, then WINDOWS
// windows of WINDOW calls are each dumped, the first dropped, the rest averaged.
// Usage: pnpm --filter @tollgate/bench bench:server-instructions
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { createRateLimitClient } from '@tollgate/server';
import { startRedis } from '@tollgate/testing';
import { callgrindArgs, countPerUnit } from '../callgrind.js';
import { machine, writeResults } from '../results.js';
import { benchDir, CONCURRENCY, callMany, IDENTITIES, serverArgs, startProcess } from './shared.js';

const WARMUP = Number(process.env.BENCH_WARMUP ?? 10_000);
const WINDOW = Number(process.env.BENCH_WINDOW ?? 2_000);
const WINDOWS = Number(process.env.BENCH_WINDOWS ?? 4);

const count = (pid: number, outDir: string, run: (n: number) => Promise<void>, label: string) =>
  countPerUnit(pid, outDir, run, { warmup: WARMUP, window: WINDOW, windows: WINDOWS }, label);

async function grpcVariant(args: string[], label: string): Promise<number> {
  const outDir = mkdtempSync(join(tmpdir(), 'tollgate-callgrind-'));
  const started = await startProcess('valgrind', [...callgrindArgs(outDir), process.execPath, ...args]);
  const client = createRateLimitClient(`127.0.0.1:${started.port}`);
  try {
    return await count(started.pid, outDir, (n) => callMany(client, n), label);
  } finally {
    client.close();
    await started.stop();
  }
}

async function inProcessVariant(redisUrl: string): Promise<number> {
  const outDir = mkdtempSync(join(tmpdir(), 'tollgate-callgrind-'));
  const args = ['--import', 'tsx', 'server/in-process.ts', redisUrl, 'driven', String(CONCURRENCY), String(IDENTITIES)];
  const child: ChildProcess = spawn('valgrind', [...callgrindArgs(outDir), process.execPath, ...args], {
    cwd: benchDir,
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  const next = async (expected: string) => {
    const { value } = await lines.next();
    if (value !== expected) throw new Error(`in-process.ts said ${value}, not ${expected}`);
  };
  try {
    await next('ready');
    return await count(
      child.pid!,
      outDir,
      async (n) => {
        child.stdin!.write(`run ${n}\n`);
        await next('done');
      },
      'in-process limiter',
    );
  } finally {
    child.stdin!.end();
    await new Promise((resolve) => child.once('exit', resolve));
  }
}

const redis = await startRedis();
const rows: { variant: string; instructions: number }[] = [];
try {
  rows.push({
    variant: 'tollgate-server, per ShouldRateLimit call',
    instructions: await grpcVariant(serverArgs(redis.url), 'tollgate-server'),
  });
  rows.push({
    variant: 'gRPC server deciding nothing (floor), per call',
    instructions: await grpcVariant(['--import', 'tsx', 'server/floor.ts'], 'floor'),
  });
  rows.push({ variant: 'in-process limiter, per decision', instructions: await inProcessVariant(redis.url) });
} finally {
  await redis.close();
}
writeResults('server-instructions', {
  machine: machine(),
  warmup: WARMUP,
  window: WINDOW,
  windows: WINDOWS,
  concurrency: CONCURRENCY,
  rows,
});
const baseline = rows.at(-1)!.instructions;
console.log(`\nInstructions per decision (callgrind; ${WARMUP} warm-up, windows of ${WINDOW}, first dropped; ${CONCURRENCY} in flight)\n`);
console.log('| process | instructions | vs in-process limiter |');
console.log('| --- | ---: | ---: |');
for (const { variant, instructions } of rows)
  console.log(`| ${variant} | ${Math.round(instructions / 1000)}k | ${(instructions / baseline).toFixed(1)}× |`);
