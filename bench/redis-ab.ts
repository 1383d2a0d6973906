// Alternating A/B of two versions of the Redis script: Redis µs per decision of a 1-limit and a
// 3-limit GCRA rule (states alive, as in redis-cost.ts), for the script at a git ref (A) and the
// script in this worktree (B), loaded into one redis-server and called in turn with the store's
// keys and arguments (batches of 128 ops, 10,000 identities in rotation). Each case reports its
// lowest round: finer than bench:redis-cost, whose run-to-run spread on a busy machine hides
// differences of a tenth of a microsecond. Builds each script from its Lua files, as
// packages/core/src/lua/script.ts does. Both run as scripts (EVALSHA), so what the function
// library keeps from call to call (see bench:redis-cost) is not measured here.
// Usage: pnpm --filter @tollgate/bench bench:redis-ab [--ref=<git ref, default HEAD>] [--rounds=30]
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { RedisProcess } from '@tollgate/testing';
import { Redis } from 'ioredis';

const arg = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1];
const REF = arg('ref') ?? 'HEAD';
const ROUNDS = Number(arg('rounds') ?? 30);
const DECISIONS = 20_000;
const BATCH = 128;
const IN_FLIGHT = 4;
const IDENTITIES = 10_000;
/** The order of ALGORITHMS in packages/core/src/algorithms/registry.ts. */
const ALGORITHM_FILES = [
  'gcra',
  'token-bucket',
  'fixed-window',
  'sliding-window-log',
  'sliding-window-counter',
  'leaky-bucket',
  'warm-up',
  'concurrency',
];
const ROOT = execFileSync('git', ['rev-parse', '--show-toplevel']).toString().trim();

function source(ref: string | undefined, path: string): string {
  if (ref === undefined) return readFileSync(`${ROOT}/${path}`, 'utf8');
  return execFileSync('git', ['-C', ROOT, 'show', `${ref}:${path}`]).toString();
}

/** A driver that defines run_batch(KEYS, ARGV) takes its rules and shapes as one argument, the header. */
const DEFINES_RUN_BATCH = 'local function run_batch(KEYS, ARGV)';

/** The script as lua/script.ts assembles it, from `ref` (undefined: the worktree), and whether its driver takes a header. */
function script(ref: string | undefined): { lua: string; header: boolean } {
  const lua = (path: string) => source(ref, `packages/core/src/${path}`);
  const algorithms = ALGORITHM_FILES.map((a) => `do\n${lua(`algorithms/${a}/${a}.lua`)}\nend`);
  const driver = lua('lua/driver.lua');
  const header = driver.includes(DEFINES_RUN_BATCH);
  const run = header ? `${driver}\nreturn run_batch(KEYS, ARGV)` : `local function run_batch()\n${driver}\nend\nreturn run_batch()`;
  return { lua: [lua('lua/prelude.lua'), ...algorithms, run].join('\n'), header };
}

/** The driver's arguments for a batch of consumes of one GCRA rule (rate 1 per 1h, 2h, 3h; burst 10,000) on Redis TIME. */
function batchArgs(limits: number, ops: number, callId: string, header: boolean): string[] {
  const fields = ['1', String(limits)];
  for (let i = 0; i < limits; i++) fields.push('gcra', '3', String(3_600_000_000 * (i + 1)), '10000', '0');
  fields.push('1', 'c', '', '1', '1', '');
  const opArgs = [String(ops), ...Array.from({ length: ops }, () => '1'), callId];
  return header ? ['5000', fields.join(' '), ...opArgs] : ['5000', ...fields, ...opArgs];
}

interface Case {
  name: string;
  sha: string;
  header: boolean;
  limits: number;
  best: number;
  bestCpu: number;
}

async function run(client: Redis, c: Case, total: number): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < total) {
      const keys: string[] = [];
      for (let i = 0; i < BATCH && next < total; i++) keys.push(`ab-${c.name}-${c.limits}:{client-${next++ % IDENTITIES}}`);
      const reply = (await client.evalsha(
        c.sha,
        keys.length,
        ...keys,
        ...batchArgs(c.limits, keys.length, String(next), c.header),
      )) as unknown[];
      // Every limit allowed with no delay: remaining, reset per limit, after the call id and Redis TIME.
      if (reply.length !== 2 + keys.length * c.limits * 2) throw new Error(`${c.name}: a decision was not admitted`);
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
}

/** Script µs (INFO commandstats) and Redis main-thread CPU µs spent so far. */
async function stats(client: Redis): Promise<{ micros: number; cpu: number }> {
  const micros = Number((await client.info('commandstats')).match(/cmdstat_evalsha:calls=\d+,usec=(\d+)/)?.[1] ?? 0);
  const cpu = await client.info('cpu');
  const seconds = (name: string) => Number(cpu.match(new RegExp(`^${name}:([\\d.]+)`, 'm'))?.[1]);
  return { micros, cpu: (seconds('used_cpu_user_main_thread') + seconds('used_cpu_sys_main_thread')) * 1e6 };
}

const redis = await RedisProcess.start();
const client = new Redis(redis.url);
try {
  const cases: Case[] = [];
  for (const [name, ref] of [
    [`A (${REF})`, REF],
    ['B (worktree)', undefined],
  ] as const) {
    const { lua, header } = script(ref);
    const sha = (await client.script('LOAD', lua)) as string;
    for (const limits of [1, 3]) cases.push({ name, sha, header, limits, best: Infinity, bestCpu: Infinity });
  }
  for (const c of cases) await run(client, c, IDENTITIES * 2);
  for (let round = 0; round < ROUNDS; round++) {
    for (const c of cases) {
      await client.config('RESETSTAT');
      const before = await stats(client);
      await run(client, c, DECISIONS);
      const after = await stats(client);
      c.best = Math.min(c.best, after.micros / DECISIONS);
      c.bestCpu = Math.min(c.bestCpu, (after.cpu - before.cpu) / DECISIONS);
    }
  }
  console.log(
    '| script | limits | script µs per decision | Redis CPU µs per decision | vs 1 limit (script, CPU) |\n|---|---:|---:|---:|---:|',
  );
  for (const c of cases) {
    const one = cases.find((o) => o.name === c.name && o.limits === 1)!;
    const ratio = c.limits === 1 ? '' : `${(c.best / one.best).toFixed(2)}×, ${(c.bestCpu / one.bestCpu).toFixed(2)}×`;
    console.log(`| ${c.name} | ${c.limits} | ${c.best.toFixed(2)} | ${c.bestCpu.toFixed(2)} | ${ratio} |`);
  }
} finally {
  client.disconnect();
  await redis.stop();
}
