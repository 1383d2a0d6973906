// Decisions per second of a MemoryStore flooded with unique identities: while it fills, and
// once it is full and every new identity evicts the longest-held one.
// Usage: pnpm --filter @tollgate/bench bench:memory-eviction [--max-keys=1000000] (the store's default)
import { createLimiter, MemoryStore } from '@tollgate/core';
import { printTable, type Row } from './measure.js';

const maxKeys = Number(process.argv.find((a) => a.startsWith('--max-keys='))?.split('=')[1] ?? 1_000_000);
/** Rates are also taken per slice, so a sawtooth shows up as a low worst slice. */
const SLICES = 20;

// Entries live for minutes: a full store must evict, it cannot wait for expiry.
const limiterOn = (store: MemoryStore) => createLimiter({ algorithm: 'gcra', rate: 100, period: '1h', burst: 100, store });
let limiter = limiterOn(new MemoryStore({ maxKeys: 10_000 }));
let next = 0;

interface Rates {
  wall: number;
  /** Per second of this process's CPU time: steadier than wall time on a shared machine. */
  cpu: number;
  worstSlice: number;
}

/** `count` decisions, each for an identity never seen before. */
async function flood(count: number): Promise<Rates> {
  const slice = Math.ceil(count / SLICES);
  let worstSlice = Infinity;
  const started = performance.now();
  const cpuStarted = process.cpuUsage();
  for (let done = 0; done < count; done += slice) {
    const sliceStarted = performance.now();
    for (let i = 0; i < slice; i++) await limiter.consume(`identity-${next++}`);
    worstSlice = Math.min(worstSlice, slice / ((performance.now() - sliceStarted) / 1000));
  }
  const cpu = process.cpuUsage(cpuStarted);
  return { wall: count / ((performance.now() - started) / 1000), cpu: count / ((cpu.user + cpu.system) / 1e6), worstSlice };
}

const rows: Row[] = [];
const record = (scenario: string, { wall, cpu, worstSlice }: Rates) => {
  rows.push({ scenario, implementation: 'per second', opsPerSecond: wall });
  rows.push({ scenario, implementation: 'per CPU second', opsPerSecond: cpu });
  rows.push({ scenario, implementation: `worst 1/${SLICES} (per second)`, opsPerSecond: worstSlice });
  console.error(`  ${scenario}: ${Math.round(wall).toLocaleString('en-US')}/s, ${Math.round(cpu).toLocaleString('en-US')}/CPU s`);
};

const filling = `filling: identities 1 to ${maxKeys.toLocaleString('en-US')}`;
const afterOne = `full: identities ${(maxKeys + 1).toLocaleString('en-US')} to ${(2 * maxKeys).toLocaleString('en-US')}`;
const afterTwo = `full: identities ${(2 * maxKeys + 1).toLocaleString('en-US')} to ${(3 * maxKeys).toLocaleString('en-US')}`;
// Warm-up on a small store, filling and evicting, so the JIT has compiled both paths.
await flood(30_000);
limiter = limiterOn(new MemoryStore({ maxKeys }));
const fill = await flood(maxKeys);
record(filling, fill);
const full = await flood(maxKeys);
record(afterOne, full);
const fullAgain = await flood(maxKeys);
record(afterTwo, fullAgain);
console.log(`MemoryStore maxKeys ${maxKeys.toLocaleString('en-US')}, gcra, one unique identity per decision, Node ${process.version}\n`);
printTable(rows);
for (const [scenario, rates] of [
  [afterOne, full],
  [afterTwo, fullAgain],
] as const) {
  const ratio = (key: 'wall' | 'cpu') => (rates[key] / fill[key]).toFixed(2);
  console.log(`${scenario}: ${ratio('wall')}× the filling rate per second, ${ratio('cpu')}× per CPU second`);
}
