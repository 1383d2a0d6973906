import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { type RedisTarget, startRedis } from '@tollgate/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from './servers.js';

const WORKER = fileURLToPath(new URL('./pause-worker.ts', import.meta.url));

let target: RedisTarget;
let server: TestServer;
let pausedAt = 0;
beforeAll(async () => {
  target = await startRedis();
  // The first call is told to come back in 1 s; every later call is welcome.
  server = await startServer((_req, res, count) => {
    if (count === 1) {
      pausedAt = Date.now();
      res.writeHead(429, { 'Retry-After': '1' }).end();
    } else {
      res.writeHead(200).end('ok');
    }
  });
});
afterAll(async () => {
  await server?.close();
  await target?.close();
});

function startWorker(prefix: string, name: string): Promise<ChildProcess> {
  const worker = fork(WORKER, [target.url, prefix, name], { execArgv: ['--import', 'tsx'], stdio: 'inherit' });
  return new Promise((resolve, reject) => {
    worker.once('exit', (code) => reject(new Error(`worker ${name} exited with ${code}`)));
    worker.once('message', () => resolve(worker));
  });
}

const next = <T>(worker: ChildProcess) => new Promise<T>((resolve) => worker.once('message', resolve));

// Real time is the subject: the pause is kept in Redis and times out on its clock.
describe('two processes sharing a RedisStore, one upstream 429 with Retry-After: 1', () => {
  it('pause together and resume at the Retry-After', async () => {
    const prefix = `fetch-pause-${Date.now()}`;
    const [first, second] = await Promise.all([startWorker(prefix, 'first'), startWorker(prefix, 'second')]);
    try {
      const paused = next<{ paused: number }>(first);
      const firstDone = new Promise<{ status: number }>((resolve) =>
        first.on('message', (m: { status?: number }) => m.status && resolve(m as never)),
      );
      first.send({ call: server.url });
      expect(await paused).toEqual({ paused: 1000 });
      // The second process has never seen the 429: its call must still wait for the shared pause.
      second.send({ call: server.url });
      const [a, b] = await Promise.all([firstDone, next<{ status: number }>(second)]);
      expect([a.status, b.status]).toEqual([200, 200]);
      const after = server.arrivals.slice(1);
      console.log(`resumed ${after.map((x) => `${x.from} +${x.at - pausedAt} ms`).join(', ')} after the 429`);
      expect(after.map((x) => x.from).sort()).toEqual(['first', 'second']);
      for (const arrival of after) {
        expect(arrival.at - pausedAt).toBeGreaterThanOrEqual(1000 - 5);
        expect(arrival.at - pausedAt).toBeLessThan(1000 + 300);
      }
    } finally {
      for (const worker of [first, second]) {
        worker.removeAllListeners('exit');
        worker.send('exit');
      }
    }
  });
});
