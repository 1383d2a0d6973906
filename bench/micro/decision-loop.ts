// One memory-store implementation deciding on its own, driven by micro/instructions.ts under
// callgrind: prints `ready`, then for each line `run <n>` on standard input decides n times, one
// at a time, and prints `done`. Every limit admits every request and keeps each key's state alive
// from one visit to the next (the settings of micro/decisions.ts).
// Usage: tsx micro/decision-loop.ts <implementation> <keys>
import { createInterface } from 'node:readline';
import { MEMORY_IMPLEMENTATIONS, type MemoryImplementation } from './memory-implementations.js';

const [name, keyCount] = process.argv.slice(2) as [MemoryImplementation, string];
const keys = Array.from({ length: Number(keyCount) }, (_, i) => `client-${i}`);
const decide = MEMORY_IMPLEMENTATIONS[name]();
let next = 0;

/**
 * The loop is a function of its own, not module code: V8 optimises a top-level-await module body
 * only by on-stack replacement, which kept it in the baseline tier for some implementations and
 * not others (a few hundred instructions per decision that were the loop's, not the limiter's).
 */
async function decideMany(count: number): Promise<void> {
  const until = next + count;
  while (next < until) await decide(keys[next++ % keys.length]!);
}

console.log('ready');
for await (const line of createInterface({ input: process.stdin })) {
  await decideMany(Number(line.split(' ')[1]));
  console.log('done');
}
