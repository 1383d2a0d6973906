// HTTP overhead counted in CPU instructions, which callgrind repeats to about 1 % whatever else
// the machine runs. Each variant of http/server.ts runs under
// `valgrind --tool=callgrind --instr-atstart=no`; WARMUP requests go uninstrumented (JIT and GC
// settle only after several thousand), then instrumentation is switched on and zeroed, and
// WINDOWS windows of WINDOW requests are each dumped with `callgrind_control -d`; the first window
// is dropped and the instructions per request are the mean of the rest. Redis variants count the
// Node side only. Writes results/<framework's results>.json (http-instructions.json for Express).
// Express requests come from BENCH_CLIENTS addresses (http/clients.ts; 10,000 unless told); with
// BENCH_CLIENTS=1 the figures go to results/<...>.one-address.json. The Fastify and Hono servers
// trust no proxy: their requests come from one address.
// Usage: pnpm bench:http-instructions   (BENCH_VARIANTS="no limiter,tollgate memory" to pick;
// BENCH_FRAMEWORK=fastify or hono for those servers: pnpm bench:http-instructions:fastify, bench:hono-instructions)
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startRedis } from '@tollgate/testing';
import autocannon from 'autocannon';
import { callgrindArgs, control, lastDumpInstructions } from '../callgrind.js';
import { machine, writeResults } from '../results.js';
import { CLIENTS, clientRequests, describeClients } from './clients.js';
import { FRAMEWORKS, type Framework } from './frameworks.js';

const WARMUP = Number(process.env.BENCH_WARMUP ?? 20_000);
const WINDOW = Number(process.env.BENCH_WINDOW ?? 4_000);
const WINDOWS = Number(process.env.BENCH_WINDOWS ?? 4);
const benchDir = fileURLToPath(new URL('..', import.meta.url));
const framework = FRAMEWORKS[(process.env.BENCH_FRAMEWORK ?? 'express') as Framework];
if (framework === undefined) throw new Error(`BENCH_FRAMEWORK is one of ${Object.keys(FRAMEWORKS).join(', ')}`);
const picked = process.env.BENCH_VARIANTS?.split(',') ?? [...framework.variants];
const addresses = framework.addresses && CLIENTS > 1;
/**
 * Servers measured at once (default 1). Instruction counts do not depend on how the cores are
 * shared, so on a machine busy with other work several at once finish sooner; requests then
 * wait longer for their server, which may put a few more of them in one event-loop turn.
 */
const PARALLEL = Number(process.env.BENCH_PARALLEL ?? 1);

/** Starts the server under callgrind and resolves with its port once it listens. */
function startServer(variant: string, redisUrl: string, outDir: string): Promise<{ child: ChildProcess; port: number }> {
  const args = callgrindArgs(outDir);
  const child = spawn('valgrind', [...args, process.execPath, '--import', 'tsx', framework.server, variant, redisUrl], {
    cwd: benchDir,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let printed = '';
  return new Promise((resolve, reject) => {
    child.stderr!.on('data', (chunk) => (printed += chunk));
    child.stdout!.on('data', (chunk) => {
      printed += chunk;
      const port = printed.match(/ready on (\d+)/)?.[1];
      if (port) resolve({ child, port: Number(port) });
    });
    child.once('exit', (code) => reject(new Error(`${variant} exited with ${code}:\n${printed}`)));
  });
}

/**
 * Sends `amount` requests and resolves with how many were answered. A refusal means the variant's
 * limit was in reach, which the benchmark must never be; a request lost to a socket error (a
 * server under callgrind on a loaded machine may be starved for seconds) is only counted out.
 */
async function load(port: number, amount: number): Promise<number> {
  const result = await autocannon({
    url: `http://127.0.0.1:${port}/`,
    connections: 10,
    amount,
    timeout: 600,
    ...(addresses ? clientRequests() : {}),
  });
  if (result.non2xx > 0) throw new Error(`${result.non2xx} non-2xx answers`);
  if (result.errors > amount / 100) throw new Error(`${result.errors} of ${amount} requests failed`);
  if (result.errors > 0) console.error(`  (${result.errors} of ${amount} requests failed and are not counted)`);
  return result['2xx'];
}

async function measure(variant: string, redisUrl: string): Promise<number> {
  const outDir = mkdtempSync(join(tmpdir(), 'tollgate-callgrind-'));
  const { child, port } = await startServer(variant, redisUrl, outDir);
  try {
    await load(port, WARMUP);
    const pid = String(child.pid);
    control('-i', 'on', pid);
    control('-z', pid);
    const seen = new Set(readdirSync(outDir));
    const perRequest: number[] = [];
    for (let window = 0; window < WINDOWS; window++) {
      const answered = await load(port, WINDOW);
      control('-d', pid);
      perRequest.push(lastDumpInstructions(outDir, seen) / answered);
    }
    const kept = perRequest.slice(1);
    console.error(`  ${variant}: ${perRequest.map((n) => Math.round(n / 1000)).join(', ')} k instructions per request`);
    return kept.reduce((sum, n) => sum + n, 0) / kept.length;
  } finally {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }
}

const redis = await startRedis();
const rows: { variant: string; instructionsPerRequest: number }[] = [];
const queue = framework.variants.filter((v) => picked.includes(v));
const measurer = async () => {
  for (let variant = queue.shift(); variant !== undefined; variant = queue.shift()) {
    rows.push({ variant, instructionsPerRequest: await measure(variant, redis.url) });
    rows.sort((a, b) => framework.variants.indexOf(a.variant) - framework.variants.indexOf(b.variant));
    // Kept after every variant: a long run interrupted still leaves what it measured.
    writeResults(addresses ? framework.results : `${framework.results}.one-address`, {
      machine: machine(),
      clients: addresses ? CLIENTS : 1,
      warmup: WARMUP,
      window: WINDOW,
      windows: WINDOWS,
      parallel: PARALLEL,
      rows,
    });
  }
};
try {
  await Promise.all(Array.from({ length: PARALLEL }, measurer));
} finally {
  await redis.close();
}
const baselineVariant = framework.variants[0]!;
const baseline = rows.find((row) => row.variant === baselineVariant)?.instructionsPerRequest;
console.log(
  `\n${framework.title}, ${addresses ? describeClients() : 'one client address'}, instructions per request (callgrind; ${WARMUP} warm-up requests, windows of ${WINDOW}, first dropped)\n`,
);
console.log(`| variant | instructions per request | vs ${baselineVariant} |`);
console.log('| --- | ---: | ---: |');
for (const { variant, instructionsPerRequest } of rows) {
  const over = baseline ? `${((instructionsPerRequest / baseline - 1) * 100).toFixed(1)} %` : '';
  console.log(`| ${variant} | ${Math.round(instructionsPerRequest / 1000)}k | ${variant === baselineVariant ? '' : `+${over}`} |`);
}
