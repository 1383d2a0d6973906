import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { type RedisTarget, startRedis } from '@tollgate/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const WORKER = fileURLToPath(new URL('./wait-worker.ts', import.meta.url));
const JOBS_PER_WORKER = 20;

let target: RedisTarget;
beforeAll(async () => {
  target = await startRedis();
});
afterAll(() => target?.close());

interface WorkerReport {
  admittedAt: number[];
  storeCalls: number;
}

/** Starts two workers on one Redis, releases them together, and collects their reports. */
async function runWorkers(prefix: string): Promise<{ goAt: number; reports: WorkerReport[] }> {
  const workers = [0, 1].map(() =>
    fork(WORKER, [target.url, prefix, String(JOBS_PER_WORKER)], {
      execArgv: ['--import', 'tsx'],
      stdio: 'inherit',
    }),
  );
  const failed = new Promise<never>((_, reject) => {
    for (const worker of workers) worker.once('exit', (code) => code !== 0 && reject(new Error(`worker exited with ${code}`)));
  });
  const next = (worker: (typeof workers)[number]) => new Promise<WorkerReport>((resolve) => worker.once('message', resolve));
  await Promise.race([failed, Promise.all(workers.map(next))]);
  const reports = workers.map(next);
  const goAt = Date.now();
  for (const worker of workers) worker.send('go');
  return { goAt, reports: await Promise.race([failed, Promise.all(reports)]) };
}

// Real time is the subject here: the slots are handed out by Redis's clock across two processes.
describe('two workers sharing one RedisStore, wait() 40 times on a 20/s limiter', () => {
  it('are let go about 50 ms apart, in about 2 s, with one store call per job', async () => {
    const { goAt, reports } = await runWorkers(`mp-wait-${Date.now()}`);
    const times = reports.flatMap((report) => report.admittedAt).sort((a, b) => a - b);
    const gaps = times.slice(1).map((t, i) => t - times[i]!);
    const span = times.at(-1)! - times[0]!;
    console.log(
      `wait(): 40 jobs over ${span} ms; gaps min ${Math.min(...gaps)} / median ${[...gaps].sort((a, b) => a - b)[19]} / max ${Math.max(...gaps)} ms; store calls ${reports.map((r) => r.storeCalls).join(' + ')}`,
    );
    expect(times).toHaveLength(2 * JOBS_PER_WORKER);
    // Job i's slot is 50·i ms after the first, which Redis hands out no earlier than 'go' was sent
    // (one clock on one machine): never let go before it, give or take a timer's millisecond. Measured
    // from 'go', not from the first job, whose own timer may fire late on a loaded machine.
    for (const [i, t] of times.entries()) expect(t - goAt).toBeGreaterThanOrEqual(50 * i - 10);
    expect(span).toBeLessThan(39 * 50 + 400);
    const sortedGaps = [...gaps].sort((a, b) => a - b);
    expect(sortedGaps[Math.floor(gaps.length / 2)]).toBeGreaterThanOrEqual(45);
    expect(sortedGaps[Math.floor(gaps.length / 2)]).toBeLessThanOrEqual(55);
    for (const report of reports) expect(report.storeCalls).toBe(JOBS_PER_WORKER);
  });
});
