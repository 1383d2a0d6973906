import { fileURLToPath } from 'node:url';
import { NodeProcess, type RedisTarget, startRedis } from '@tollgate/testing';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PausingUpstream, startPausingUpstream } from './servers.js';

const WORKER = fileURLToPath(new URL('./paused-upstream-worker.ts', import.meta.url));
const PACKAGE = fileURLToPath(new URL('..', import.meta.url));

let target: RedisTarget;
let upstream: PausingUpstream;
beforeAll(async () => {
  target = await startRedis();
  upstream = await startPausingUpstream(2);
});
afterAll(async () => {
  await upstream?.close();
  await target?.close();
});

// Real time is the subject: the pause is kept in Redis and times out on its clock.
describe('3 processes sharing a RedisStore, 10 callers at qps 10 (burst 1), the first answered 429 with Retry-After: 2', () => {
  it('send nothing while the upstream is paused', async () => {
    const prefix = `fetch-paused-${Date.now()}`;
    const callers = { a: 4, b: 3, c: 3 };
    const workers = await Promise.all(
      Object.entries(callers).map(([name, count]) =>
        NodeProcess.start(['--import', 'tsx', WORKER, target.url, prefix, upstream.url, String(count), name], {
          cwd: PACKAGE,
          ready: /^ready$/m,
        }),
      ),
    );
    const client = new Redis(target.url);
    try {
      await client.rpush(`${prefix}:go`, ...Object.keys(callers));
      const printed = await Promise.all(workers.map((worker) => worker.waitFor(/^statuses (.*)$/m, 30_000)));
      const statuses = printed.flatMap((match) => JSON.parse(match[1]!) as number[]);
      expect(statuses).toEqual(Array(10).fill(200));
      const hits = upstream.hitsWhilePaused();
      console.log(`paused upstream hit ${hits.length} times (10 callers, 3 processes)`);
      expect(hits).toEqual([]);
      // Every process took part: the 429 paused callers that had never seen it.
      expect(new Set(upstream.arrivals.map((arrival) => arrival.from))).toEqual(new Set(Object.keys(callers)));
    } finally {
      client.disconnect();
      await Promise.all(workers.map((worker) => worker.stop()));
    }
  });
});
