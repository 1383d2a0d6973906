/** Closed-loop throughput: `inFlight` workers each await `op` back to back until time is up. */
export async function decisionsPerSecond(
  op: (i: number) => Promise<unknown>,
  { inFlight, durationMs, warmupMs = 300 }: { inFlight: number; durationMs: number; warmupMs?: number },
): Promise<number> {
  await runFor(op, inFlight, warmupMs);
  const started = performance.now();
  const count = await runFor(op, inFlight, durationMs);
  return count / ((performance.now() - started) / 1000);
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
  /** Compared with this implementation's figure in the same scenario. */
  baseline?: string;
}

export function printTable(rows: Row[]): void {
  const byKey = new Map(rows.map((row) => [`${row.scenario}|${row.implementation}`, row.opsPerSecond]));
  const lines = rows.map((row) => {
    const base = row.baseline ? byKey.get(`${row.scenario}|${row.baseline}`) : undefined;
    const ratio = base ? `${(row.opsPerSecond / base).toFixed(2)}× ${row.baseline}` : '';
    return [row.scenario, row.implementation, Math.round(row.opsPerSecond).toLocaleString('en-US'), ratio];
  });
  const header = ['scenario', 'implementation', 'decisions/s', 'ratio'];
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
  const format = (cells: string[]) => `| ${cells.map((c, i) => (i === 2 ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join(' | ')} |`;
  console.log(format(header));
  console.log(`|${widths.map((w, i) => (i === 2 ? `${'-'.repeat(w + 1)}:` : '-'.repeat(w + 2))).join('|')}|`);
  for (const line of lines) console.log(format(line));
}
