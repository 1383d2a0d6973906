import { type ChildProcess, fork } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { type RedisTarget, startRedis } from '@tollgate/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const WORKER = fileURLToPath(new URL('./skewed-worker.ts', import.meta.url));
const SKEW_MS = 5000;
const REQUESTS = 150;

let target: RedisTarget;
beforeAll(async () => {
  target = await startRedis();
});
afterAll(() => target?.close());

function startWorker(time: 'client' | 'server', skewMs: number, rule: object, prefix: string): ChildProcess {
  return fork(WORKER, [target.url, prefix, time, String(skewMs), String(REQUESTS), JSON.stringify(rule)], {
    execArgv: ['--import', 'tsx'],
    stdio: 'inherit',
  });
}

/** The next message of a worker; fails if it exits first. */
async function nextMessage<T>(worker: ChildProcess): Promise<T> {
  const exited = once(worker, 'exit').then(([code]) => {
    throw new Error(`worker exited with ${code}`);
  });
  return Promise.race([once(worker, 'message').then(([message]) => message as T), exited]);
}

/**
 * Two processes, one 5 s behind real time and one 5 s ahead (10 s apart), both started and
 * ready; the one behind fires its requests, then the one ahead: their total admitted.
 */
async function admittedBehindThenAhead(time: 'client' | 'server', rule: object, name: string): Promise<number> {
  const prefix = `skew-${time}-${name}-${Date.now()}`;
  const workers = [startWorker(time, -SKEW_MS, rule, prefix), startWorker(time, SKEW_MS, rule, prefix)];
  await Promise.all(workers.map((worker) => nextMessage(worker)));
  let total = 0;
  for (const worker of workers) {
    const report = nextMessage<{ admitted: number }>(worker);
    worker.send('go');
    total += (await report).admitted;
  }
  return total;
}

// Limits of 100 whose window (or lease) is shorter than the 10 s between the two clocks.
const RULES = [
  ['sliding-window-log', { algorithm: 'sliding-window-log', limit: 100, window: '5s' }],
  ['fixed-window', { algorithm: 'fixed-window', limit: 100, window: '5s' }],
  ['concurrency', { algorithm: 'concurrency', limit: 100, leaseTtl: '5s' }],
] as const;

describe('two processes whose clocks are ±5 s off, one Redis', () => {
  it.each(RULES)("%s: time 'client' admits up to twice the limit, as documented", async (name, rule) => {
    expect(await admittedBehindThenAhead('client', rule, name)).toBe(200);
  });

  it.each(RULES)("%s: time 'server' is exact, even with the skewed clock given to the limiter", async (name, rule) => {
    expect(await admittedBehindThenAhead('server', rule, name)).toBe(100);
  });
});
