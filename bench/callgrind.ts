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
