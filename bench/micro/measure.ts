/**
 * Closed-loop throughput: `inFlight` workers each await `op` back to back until time is up.
 * `perCpuSecond` divides by this process's CPU time instead of the wall clock: on a machine
 * other work keeps busy it moves far less, and for the memory store it is the whole cost.
 */
export async function decisionsPerSecond(
  op: (i: number) => Promise<unknown>,
  { inFlight, durationMs, warmupMs = 300 }: { inFlight: number; durationMs: number; warmupMs?: number },
): Promise<{ perSecond: number; perCpuSecond: number }> {
  await runFor(op, inFlight, warmupMs);
  const started = performance.now();
  const cpuBefore = process.cpuUsage();
  const count = await runFor(op, inFlight, durationMs);
  const cpu = process.cpuUsage(cpuBefore);
  return { perSecond: count / ((performance.now() - started) / 1000), perCpuSecond: count / ((cpu.user + cpu.system) / 1e6) };
}

/** Runs `op` exactly `total` times, `inFlight` at a time, with `i` from 0 to `total - 1`. */
export async function runCount(op: (i: number) => Promise<unknown>, inFlight: number, total: number): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < total) await op(next++);
  };
  await Promise.all(Array.from({ length: inFlight }, worker));
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

async function runFor(op: (i: number) => Promise<unknown>, inFlight: number, durationMs: number): Promise<number> {
  const deadline = performance.now() + durationMs;
  let count = 0;
  const worker = async () => {
    // Checking the clock every 64 operations keeps its cost out of the figures.
    while (true) {
      for (let j = 0; j < 64; j++) await op(count++);
      if (performance.now() >= deadline) return;
    }
  };
  await Promise.all(Array.from({ length: inFlight }, worker));
  return count;
}

export interface Row {
  scenario: string;
  implementation: string;
  opsPerSecond: number;
  /** Decisions per second of this process's CPU time, when measured. */
  opsPerCpuSecond?: number;
  /** Compared with this implementation's figure in the same scenario. */
  baseline?: string;
  /** The ratio to the baseline when measured otherwise than from the two figures (e.g. a median of per-round ratios). */
  ratio?: number;
  cpuRatio?: number;
}

export function printTable(rows: Row[]): void {
  const byKey = new Map(rows.map((row) => [`${row.scenario}|${row.implementation}`, row]));
  const lines = rows.map((row) => {
    const base = row.baseline ? byKey.get(`${row.scenario}|${row.baseline}`) : undefined;
    const ratio = (given: number | undefined, value: number | undefined, of: number | undefined) => {
      const times = given ?? (value !== undefined && of ? value / of : undefined);
      return times === undefined ? '' : `${times.toFixed(2)}× ${row.baseline}`;
    };
    return [
      row.scenario,
      row.implementation,
      Math.round(row.opsPerSecond).toLocaleString('en-US'),
      ratio(row.ratio, row.opsPerSecond, base?.opsPerSecond),
      row.opsPerCpuSecond === undefined ? '' : Math.round(row.opsPerCpuSecond).toLocaleString('en-US'),
      ratio(row.cpuRatio, row.opsPerCpuSecond, base?.opsPerCpuSecond),
    ];
  });
  const header = ['scenario', 'implementation', 'decisions/s', 'ratio', 'decisions per CPU-second', 'ratio'];
  const numeric = new Set([2, 4]);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
  const format = (cells: string[]) =>
    `| ${cells.map((c, i) => (numeric.has(i) ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join(' | ')} |`;
  console.log(format(header));
  console.log(`|${widths.map((w, i) => (numeric.has(i) ? `${'-'.repeat(w + 1)}:` : '-'.repeat(w + 2))).join('|')}|`);
  for (const line of lines) console.log(format(line));
}
