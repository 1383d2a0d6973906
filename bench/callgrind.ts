// What the callgrind benches share: how they start a process under callgrind, switch it and read its dumps.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** valgrind's arguments: callgrind, instrumentation off until `control('-i', 'on', pid)`, dumps in `outDir`. */
export function callgrindArgs(outDir: string): string[] {
  return ['--tool=callgrind', '--instr-atstart=no', `--callgrind-out-file=${join(outDir, 'callgrind.out.%p')}`];
}

export const control = (...args: string[]): void => void execFileSync('callgrind_control', args, { stdio: 'ignore' });

/** Instructions (Ir) of the dump callgrind wrote last: its `totals:` line. */
export function lastDumpInstructions(outDir: string, seen: Set<string>): number {
  const fresh = readdirSync(outDir).filter((file) => !seen.has(file));
  if (fresh.length !== 1) throw new Error(`expected one new callgrind dump, found ${fresh.length}`);
  seen.add(fresh[0]!);
  const totals = readFileSync(join(outDir, fresh[0]!), 'utf8').match(/^(?:totals|summary): (\d+)/m);
  if (!totals) throw new Error(`no totals in ${fresh[0]}`);
  return Number(totals[1]);
}

export interface Windows {
  /** Units run uninstrumented first. */
  warmup: number;
  /** Units per counted window. */
  window: number;
  /** Windows counted; the first is dropped. */
  windows: number;
}

/**
 * Warms up, switches instrumentation on, and counts `windows` windows of `run(window)`: the mean
 * instructions per unit of the windows after the first.
 */
export async function countPerUnit(
  pid: number,
  outDir: string,
  run: (n: number) => Promise<void>,
  { warmup, window, windows }: Windows,
  label: string,
): Promise<number> {
  await run(warmup);
  control('-i', 'on', String(pid));
  control('-z', String(pid));
  const seen = new Set(readdirSync(outDir));
  const perUnit: number[] = [];
  for (let at = 0; at < windows; at++) {
    await run(window);
    control('-d', String(pid));
    perUnit.push(lastDumpInstructions(outDir, seen) / window);
  }
  console.error(`  ${label}: ${perUnit.map((n) => Math.round(n)).join(', ')} instructions each`);
  const kept = perUnit.slice(1);
  return kept.reduce((sum, n) => sum + n, 0) / kept.length;
}
