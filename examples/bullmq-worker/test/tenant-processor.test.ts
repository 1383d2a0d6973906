import { RedisStore } from '@tollgate/core';
import { type RedisTarget, startRedis } from '@tollgate/testing';
import { type Job, Queue, QueueEvents, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withTenantLimits } from '../src/tenant-processor.js';

interface TestJob {
  tenant: string;
  n: number;
}

let target: RedisTarget;
const clients: Redis[] = [];
const client = (options = {}) => {
  const created = new Redis(target.url, options);
  clients.push(created);
  return created;
};
beforeAll(async () => {
  target = await startRedis();
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.quit()));
  await target?.close();
});

describe('two BullMQ workers with per-tenant limits on one Redis', () => {
  it('run each tenant at its own rate, every job once, a tenant far behind waiting in the delayed set', async () => {
    const name = `tollgate-${process.pid}-${Date.now()}`;
    const queue = new Queue<TestJob>(name, { connection: client({ maxRetriesPerRequest: null }) });
    const events = new QueueEvents(name, { connection: client({ maxRetriesPerRequest: null }) });
    const runs: { worker: string; tenant: string; n: number; at: number }[] = [];
    const workers = ['w1', 'w2'].map((worker) => {
      const processor = withTenantLimits<TestJob, number>(
        new RedisStore({ client: client() }),
        `${name}:tenant`,
        { defaultPerSecond: 20, perSecond: { slow: 4 }, maxHoldMs: 500 },
        (job: Job<TestJob>) => job.data.tenant,
        async (job) => {
          runs.push({ worker, tenant: job.data.tenant, n: job.data.n, at: Date.now() });
          return job.data.n;
        },
      );
      return new Worker<TestJob, number>(name, processor, { connection: client({ maxRetriesPerRequest: null }), concurrency: 20 });
    });
    try {
      await events.waitUntilReady();
      const jobs = [
        ...Array.from({ length: 8 }, (_, n) => ({ tenant: 'slow', n })),
        ...Array.from({ length: 20 }, (_, n) => ({ tenant: 'fast', n })),
      ];
      let delayed = 0;
      events.on('delayed', () => delayed++);
      const completed = new Promise<void>((resolve) => {
        let count = 0;
        events.on('completed', () => ++count === jobs.length && resolve());
      });
      await queue.addBulk(jobs.map((data) => ({ name: 'job', data })));
      await completed;

      // Every job ran exactly once.
      const key = (r: { tenant: string; n: number }) => `${r.tenant}-${r.n}`;
      expect(runs.map(key).sort()).toEqual(jobs.map(key).sort());
      expect(new Set(runs.map((r) => r.worker))).toEqual(new Set(['w1', 'w2']));
      const rate = (tenant: string, intervalMs: number) => {
        const times = runs
          .filter((r) => r.tenant === tenant)
          .map((r) => r.at)
          .sort((a, b) => a - b);
        for (const [i, t] of times.entries()) expect(t - times[0]!).toBeGreaterThanOrEqual(intervalMs * i - 30);
        return ((times.length - 1) * 1000) / (times.at(-1)! - times[0]!);
      };
      const slow = rate('slow', 250);
      const fast = rate('fast', 50);
      console.log(
        `bullmq: slow ${slow.toFixed(1)}/s (limit 4/s), fast ${fast.toFixed(1)}/s (limit 20/s), ${delayed} moves to the delayed set`,
      );
      // The fast tenant was not held up behind the slow one, whose jobs beyond 500 ms went to the delayed set.
      expect(fast).toBeGreaterThan(10);
      expect(delayed).toBeGreaterThan(0);
    } finally {
      await Promise.all(workers.map((worker) => worker.close()));
      await events.close();
      await queue.obliterate({ force: true });
      await queue.close();
    }
  });
});
