import { type ChildProcess, fork } from 'node:child_process';
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { type RedisTarget, startRedis } from '@tollgate/testing';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const WORKER = fileURLToPath(new URL('./wait-all-worker.ts', import.meta.url));

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

function startConsumer(prefix: string): Promise<ChildProcess> {
  const worker = fork(WORKER, [target.url, prefix, '8'], { execArgv: ['--import', 'tsx'], stdio: 'inherit' });
  return new Promise((resolve, reject) => {
    worker.once('exit', (code) => reject(new Error(`consumer exited with ${code}`)));
    worker.once('message', () => resolve(worker));
  });
}

/** The most of `times` that fall in any window [t, t + windowMs). */
function mostInWindow(times: readonly number[], windowMs: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  let most = 0;
  for (let start = 0, end = 0; end < sorted.length; end++) {
    while (sorted[end]! - sorted[start]! >= windowMs) start++;
    most = Math.max(most, end - start + 1);
  }
  return most;
}

// Real time is the subject: three processes, one killed mid-batch, share the limits through Redis.
describe('3 consumers (8 jobs in flight each) on one Redis, waitAll over a tenant 10/s and a global 20/s', () => {
  it('start no tenant above 10 and the queue above 20 in any second, with a consumer killed mid-batch', async () => {
    const prefix = `mp-wait-all-${Date.now()}`;
    const jobs = [...Array(30).fill('a'), ...Array(15).fill('b'), ...Array(15).fill('c')];
    await client.rpush(`${prefix}:jobs`, ...jobs);
    const consumers = await Promise.all([0, 1, 2].map(() => startConsumer(prefix)));
    for (const consumer of consumers) consumer.removeAllListeners('exit');
    const finished = consumers.slice(1).map((consumer) => once(consumer, 'message'));
    for (const consumer of consumers) consumer.send('go');
    await sleep(800);
    consumers[0]!.kill('SIGKILL');
    await Promise.all(finished);
    const starts = (await client.lrange(`${prefix}:starts`, 0, -1)).map((line) => line.split(' ') as [string, string]);
    const byTenant = new Map<string, number[]>();
    for (const [tenant, at] of starts) byTenant.set(tenant, [...(byTenant.get(tenant) ?? []), Number(at)]);
    const most = [...byTenant].map(([tenant, times]) => [tenant, mostInWindow(times, 1000)] as const);
    console.log(`${starts.length} jobs started; most in any 1 s: ${most.map(([t, n]) => `${t} ${n}`).join(', ')}`);
    // The killed consumer took at most its 8 jobs in flight with it.
    expect(starts.length).toBeGreaterThanOrEqual(jobs.length - 8);
    for (const [, count] of most) expect(count).toBeLessThanOrEqual(10);
    // Tenant a had a backlog of 30: it ran at its full rate, no faster.
    expect(Object.fromEntries(most).a).toBe(10);
    expect(
      mostInWindow(
        starts.map(([, at]) => Number(at)),
        1000,
      ),
    ).toBeLessThanOrEqual(20);
  });
});
