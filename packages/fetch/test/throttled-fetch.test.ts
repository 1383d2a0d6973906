import { createServer } from 'node:http';
import { createLimiter, MemoryStore, type Store } from '@tollgate/core';
import { rateLimit } from '@tollgate/express';
import express from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import { createThrottledFetch, type ThrottledFetchEvents } from '../src/index.js';
import { type Arrival, listen, startPausingUpstream, startServer, type TestServer } from './servers.js';

const servers: TestServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function track<T extends TestServer>(server: Promise<T>): Promise<T> {
  const started = await server;
  servers.push(started);
  return started;
}

/** Collects every event a throttled fetch emits. */
function recorder() {
  const seen: { name: string; event: object }[] = [];
  const events: ThrottledFetchEvents = {
    pause: (event) => seen.push({ name: 'pause', event }),
    retry: (event) => seen.push({ name: 'retry', event }),
    ignoredHeader: (event) => seen.push({ name: 'ignoredHeader', event }),
    policy: (event) => seen.push({ name: 'policy', event }),
  };
  return { seen, events, named: (name: string) => seen.filter((e) => e.name === name).map((e) => e.event) };
}

describe('createThrottledFetch against a server limited by @tollgate/express', () => {
  it('learns the server limit from its headers: every call gets through, the 429s are retried', async () => {
    const app = express();
    app.use(rateLimit({ qps: 5, burst: 2, headers: 'draft' }));
    app.get('/', (_req, res) => {
      res.send('ok');
    });
    const arrivals: Arrival[] = [];
    const httpServer = createServer((req, res) => {
      const at = Date.now();
      res.on('finish', () => arrivals.push({ at, from: undefined, status: res.statusCode }));
      app(req, res);
    });
    const server = await track(listen(httpServer, arrivals));
    const { events, named } = recorder();
    // The client's own limiter is generous: the server's answers do the pacing.
    const throttled = createThrottledFetch({ limiter: createLimiter({ qps: 1000 }), events });
    const responses = await Promise.all(Array.from({ length: 4 }, () => throttled(`${server.url}/`)));
    expect(responses.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    expect(await Promise.all(responses.map((r) => r.text()))).toEqual(['ok', 'ok', 'ok', 'ok']);
    expect(named('pause').length).toBeGreaterThan(0);
    expect(named('policy')[0]).toMatchObject({ policies: [{ name: 'default', quota: 2 }] });
    // 200s arrive no faster than the server's 5/s after its burst of 2.
    const admitted = arrivals.filter((a) => a.status === 200).map((a) => a.at);
    expect(admitted.at(-1)! - admitted[0]!).toBeGreaterThanOrEqual(2 * 200 - 20);
    // Retry-After and RateLimit are whole seconds: each 429 costs at most a second of waiting, not a storm.
    expect(arrivals.filter((a) => a.status === 429).length).toBeLessThanOrEqual(2);
  });
});

describe('createThrottledFetch against a server sending only X-RateLimit-* and Retry-After as a date', () => {
  it('holds every call until the date, then retries', async () => {
    let resumeAt = 0;
    const server = await track(
      startServer((_req, res, count) => {
        if (count === 2) {
          // A date two whole seconds ahead, as HTTP dates have no milliseconds.
          resumeAt = (Math.floor(Date.now() / 1000) + 2) * 1000;
          res.writeHead(429, { 'Retry-After': new Date(resumeAt).toUTCString(), 'X-RateLimit-Remaining': '0' }).end();
          return;
        }
        res.writeHead(200, { 'X-RateLimit-Limit': '100', 'X-RateLimit-Remaining': '50', 'X-RateLimit-Reset': '60' }).end('ok');
      }),
    );
    const { events, named } = recorder();
    const throttled = createThrottledFetch({ limiter: createLimiter({ qps: 1000 }), events });
    expect((await throttled(server.url)).status).toBe(200);
    const [retried, queued] = await Promise.all([throttled(server.url), delayed(50, () => throttled(server.url))]);
    expect([retried.status, queued.status]).toEqual([200, 200]);
    expect(named('pause')).toEqual([expect.objectContaining({ header: 'retry-after', status: 429 })]);
    expect(named('retry')).toEqual([expect.objectContaining({ attempt: 1, status: 429 })]);
    const afterPause = server.arrivals.slice(2);
    expect(afterPause).toHaveLength(2);
    for (const arrival of afterPause) expect(arrival.at).toBeGreaterThanOrEqual(resumeAt - 5);
  });

  it('hands a 429 whose Retry-After it cannot follow back at once, with an event', async () => {
    const hostile = [
      { header: '-30', reason: 'negative' },
      { header: 'whenever', reason: 'malformed' },
      { header: '86400', reason: 'too-long' },
    ];
    for (const { header, reason } of hostile) {
      const server = await track(startServer((_req, res) => res.writeHead(429, { 'Retry-After': header }).end()));
      const { events, named } = recorder();
      const throttled = createThrottledFetch({ limiter: createLimiter({ qps: 1000 }), events, retry: { limit: 3, backoff: 20 } });
      expect((await throttled(server.url)).status).toBe(429);
      expect(server.arrivals).toHaveLength(1);
      expect(named('retry')).toEqual([]);
      expect(named('pause')).toEqual([]);
      expect(named('ignoredHeader')).toEqual([expect.objectContaining({ header: 'retry-after', value: header, reason })]);
    }
  });

  it('retries a 429 that names no time on its own backoff, ignoring a malformed reset', async () => {
    const server = await track(
      startServer((_req, res, count) => {
        if (count <= 3) res.writeHead(429, { 'X-RateLimit-Remaining': '0', 'X-RateLimit-Reset': 'never' }).end();
        else res.writeHead(200).end('ok');
      }),
    );
    const { events, named } = recorder();
    const throttled = createThrottledFetch({ limiter: createLimiter({ qps: 1000 }), events, retry: { limit: 3, backoff: 20 } });
    expect((await throttled(server.url)).status).toBe(200);
    expect(named('pause')).toEqual([]);
    expect(named('ignoredHeader').map((e) => (e as { reason: string }).reason)).toEqual(['malformed', 'malformed', 'malformed']);
    expect(named('retry').map((e) => (e as { waitMs: number }).waitMs)).toEqual([20, 40, 80]);
  });

  it('does not retry a POST, and gives the caller the 429 when the pause is past maxWait', async () => {
    const server = await track(startServer((_req, res) => res.writeHead(429, { 'Retry-After': '30' }).end()));
    const throttled = createThrottledFetch({ limiter: createLimiter({ qps: 1000 }), maxWait: '1s' });
    expect((await throttled(server.url, { method: 'POST', body: 'x' })).status).toBe(429);
    expect(server.arrivals).toHaveLength(1);
    // The key is now paused for 30 s: a new call rejects at once instead of waiting past maxWait.
    await expect(throttled(server.url)).rejects.toMatchObject({ code: 'ERR_TOLLGATE_WAIT_TIMEOUT' });
    expect(server.arrivals).toHaveLength(1);
  });

  it('aborting a call that waits for its pause rejects with the reason', async () => {
    const server = await track(startServer((_req, res) => res.writeHead(429, { 'Retry-After': '30' }).end()));
    const throttled = createThrottledFetch({ limiter: createLimiter({ qps: 1000 }), retry: false });
    await throttled(server.url);
    const controller = new AbortController();
    const waiting = throttled(server.url, { signal: controller.signal });
    setTimeout(() => controller.abort(new Error('stop')), 20);
    await expect(waiting).rejects.toThrow('stop');
    expect(server.arrivals).toHaveLength(1);
  });
});

/** A store shared by two "processes" whose writes land 50 ms after they are sent, as over a slow link; reads answer at once. */
function slowWritingStore(): Store {
  const memory = new MemoryStore();
  return {
    execute: (operation) => (operation.kind === 'peek' ? memory.execute(operation) : delayed(50, () => memory.execute(operation))),
  };
}

describe('the pause event', () => {
  it('comes once the pause is shared: a call another process starts then waits it out', async () => {
    const upstream = await track(startPausingUpstream(1));
    const store = slowWritingStore();
    const other = createThrottledFetch({ limiter: createLimiter({ qps: 1000 }), store, retry: false });
    let started: Promise<Response> | undefined;
    const first = createThrottledFetch({
      limiter: createLimiter({ qps: 1000 }),
      store,
      retry: false,
      events: { pause: () => (started = other(upstream.url)) },
    });
    expect((await first(upstream.url)).status).toBe(429);
    expect((await started!).status).toBe(200);
    expect(upstream.hitsWhilePaused()).toEqual([]);
  });
});

function delayed<T>(ms: number, run: () => Promise<T>): Promise<T> {
  return new Promise((resolve, reject) => setTimeout(() => run().then(resolve, reject), ms));
}

// Real time is the subject: the callers sleep in limiter.wait while the upstream's pause runs.
describe('10 callers at qps 10 (burst 1), the first answered 429 with Retry-After: 2', () => {
  it('sends nothing while the upstream is paused, then resumes at the limiter pace', async () => {
    const upstream = await track(startPausingUpstream(2));
    const throttled = createThrottledFetch({ limiter: createLimiter({ qps: 10, burst: 1 }) });
    const responses = await Promise.all(Array.from({ length: 10 }, () => throttled(upstream.url)));
    expect(responses.map((r) => r.status)).toEqual(Array(10).fill(200));
    console.log(`paused upstream hit ${upstream.hitsWhilePaused().length} times (10 callers, 1 process)`);
    expect(upstream.hitsWhilePaused()).toEqual([]);
    // Held back by the pause, each call took a new slot: the 10 that follow keep 100 ms apart.
    const resumed = upstream.arrivals.slice(1).map((arrival) => arrival.at);
    expect(resumed).toHaveLength(10);
    expect(resumed[0]! - upstream.pausedAt()).toBeGreaterThanOrEqual(2000);
    expect(resumed.at(-1)! - resumed[0]!).toBeGreaterThanOrEqual(900 - 20);
  });
});
