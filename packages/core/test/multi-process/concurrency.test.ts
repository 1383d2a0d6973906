import { type ChildProcess, fork } from 'node:child_process';
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { type RedisTarget, startRedis } from '@tollgate/testing';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createConcurrencyLimiter, RedisStore } from '../../src/index.js';
import { STORE_SEMANTICS } from '../helpers/stores.js';

const WORKER = fileURLToPath(new URL('./concurrency-worker.ts', import.meta.url));

let target: RedisTarget;
let client: Redis;
beforeAll(async () => {
  target = await startRedis();
  client = new Redis(target.url);
});
afterAll(async () => {
  await client?.quit();
  await target?.close();
});

function startWorker(args: string[]): ChildProcess {
  return fork(WORKER, [args[0]!, target.url, ...args.slice(1)], {
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

describe('the concurrency limiter across processes on one Redis', () => {
  it('4 processes × 10 concurrent loops never hold more than 5 slots at once', async () => {
    const prefix = `mp-conc-${Date.now()}`;
    const spec = JSON.stringify({ limit: 5, leaseTtl: '30s' });
    const workers = Array.from({ length: 4 }, () => startWorker(['hammer', prefix, spec, '10', '8']));
    await Promise.all(workers.map((worker) => nextMessage(worker)));
    const reports = workers.map((worker) => nextMessage<{ highest: number }>(worker));
    for (const worker of workers) worker.send('go');
    const highest = Math.max(...(await Promise.all(reports)).map((report) => report.highest));
    // 320 requests went through 5 slots: the limit was reached and never exceeded.
    expect(highest).toBe(5);
    const limiter = createConcurrencyLimiter({ limit: 5, leaseTtl: '30s', store: new RedisStore({ client }), prefix, ...STORE_SEMANTICS });
    expect(await limiter.peek('shared-key')).toMatchObject({ allowed: true, remaining: 5 });
  });

  it('a process killed (SIGKILL) while holding leases gets its slots back after leaseTtl', async () => {
    const prefix = `mp-crash-${Date.now()}`;
    const spec = { limit: 3, leaseTtl: 1000 };
    const worker = startWorker(['hold', prefix, JSON.stringify(spec), '3']);
    expect(await nextMessage<{ held: number }>(worker)).toEqual({ held: 3 });
    worker.kill('SIGKILL');
    await once(worker, 'exit');

    const limiter = createConcurrencyLimiter({ ...spec, store: new RedisStore({ client }), prefix, ...STORE_SEMANTICS });
    const denied = await limiter.acquire('crash-key');
    expect(denied.allowed).toBe(false);
    expect(denied.retryAfterMs).toBeGreaterThan(0);
    expect(denied.retryAfterMs).toBeLessThanOrEqual(1000);
    await sleep(denied.retryAfterMs + 50);
    const decisions = await Promise.all([1, 2, 3].map(() => limiter.acquire('crash-key')));
    expect(decisions.map((d) => d.allowed)).toEqual([true, true, true]);
    expect((await limiter.acquire('crash-key')).allowed).toBe(false);
  });
});
