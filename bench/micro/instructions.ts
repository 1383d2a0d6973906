// Instructions per in-memory decision, which callgrind counts alike whatever else the machine
// runs: each implementation of memory-implementations.ts decides in its own process
// (decision-loop.ts) under `valgrind --tool=callgrind --instr-atstart=no`, one decision at a time,
// with one hot key and with 100,000 keys in rotation. Every key is decided for during the
// uninstrumented warm-up (at least twice its count), then WINDOWS windows of WINDOW decisions are
// each dumped, the first dropped, the rest averaged. Writes results/decision-instructions.json.
// Usage: pnpm bench:decision-instructions   (BENCH_KEYS=1 for the hot key only; BENCH_IMPLEMENTATIONS=
// a comma-separated list of names of memory-implementations.ts to pick, the first the reference)
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { callgrindArgs, countPerUnit } from '../callgrind.js';
import { machine, writeResults } from '../results.js';
import { MEMORY_IMPLEMENTATIONS, type MemoryImplementation } from './memory-implementations.js';

const WARMUP = Number(process.env.BENCH_WARMUP ?? 200_000);
const WINDOW = Number(process.env.BENCH_WINDOW ?? 50_000);
const WINDOWS = Number(process.env.BENCH_WINDOWS ?? 4);
const KEYS = (process.env.BENCH_KEYS ?? '1,100000').split(',').map(Number);
const benchDir = fileURLToPath(new URL('..', import.meta.url));

async function measure(implementation: MemoryImplementation, keys: number): Promise<number> {
  const outDir = mkdtempSync(join(tmpdir(), 'tollgate-callgrind-'));
  const args = ['--import', 'tsx', 'micro/decision-loop.ts', implementation, String(keys)];
  const child = spawn('valgrind', [...callgrindArgs(outDir), process.execPath, ...args], {
    cwd: benchDir,
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  const next = async (expected: string) => {
    const { value } = await lines.next();
    if (value !== expected) throw new Error(`decision-loop.ts said ${value}, not ${expected}`);
  };
  try {
    await next('ready');
    const run = async (n: number) => {
      child.stdin!.write(`run ${n}\n`);
      await next('done');
    };
    const windows = { warmup: Math.max(WARMUP, 2 * keys), window: WINDOW, windows: WINDOWS };
    return await countPerUnit(child.pid!, outDir, run, windows, `${implementation}, ${keys} keys`);
  } finally {
    child.stdin!.end();
    await new Promise((resolve) => child.once('exit', resolve));
  }
}

const rows: { implementation: MemoryImplementation; keys: number; instructions: number }[] = [];
const implementations = (Object.keys(MEMORY_IMPLEMENTATIONS) as MemoryImplementation[]).filter(
  (implementation) => process.env.BENCH_IMPLEMENTATIONS?.split(',').includes(implementation) ?? true,
);
// Both key counts of every implementation at once: callgrind's count does not depend on how the cores are shared.
await Promise.all(
  KEYS.flatMap((keys) =>
    implementations.map(async (implementation) => rows.push({ implementation, keys, instructions: await measure(implementation, keys) })),
  ),
);
rows.sort((a, b) => a.keys - b.keys || implementations.indexOf(a.implementation) - implementations.indexOf(b.implementation));
writeResults('decision-instructions', { machine: machine(), warmup: WARMUP, window: WINDOW, windows: WINDOWS, rows });
console.log(`\nInstructions per in-memory decision (callgrind; windows of ${WINDOW}, first dropped; one decision at a time)\n`);
console.log('| keys | implementation | instructions per decision | vs tollgate |');
console.log('| ---: | --- | ---: | ---: |');
for (const { implementation, keys, instructions } of rows) {
  const tollgate = rows.find((row) => row.keys === keys && row.implementation === implementations[0])!.instructions;
  console.log(
    `| ${keys.toLocaleString('en-US')} | ${implementation} | ${Math.round(instructions).toLocaleString('en-US')} | ${(instructions / tollgate).toFixed(2)}× |`,
  );
}
