import { createServer, request as httpRequest, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import { Hono } from 'hono';
import request from 'supertest';
import { describe, expect, it, vi } from 'vitest';
import { type AdaptiveConcurrencyOptions, adaptiveConcurrency } from '../src/index.js';

/** A route that answers only once `release` is called: its requests hold their slots until then. */
function heldRoute() {
  const waiting: (() => void)[] = [];
  let arrivals = 0;
  const listeners: (() => void)[] = [];
  const answer = () =>
    new Promise<void>((resolve) => {
      waiting.push(resolve);
      arrivals += 1;
      for (const listener of listeners.splice(0)) listener();
    });
  /** Resolves once `count` requests reached the route. */
  const reached = async (count = 1): Promise<void> => {
    while (arrivals < count) await new Promise<void>((resolve) => listeners.push(resolve));
  };
  const release = () => {
    for (const resolve of waiting.splice(0)) resolve();
  };
  return { answer, reached, release };
}

describe('adaptiveConcurrency on Hono (@hono/node-server)', () => {
  function appWith(options: AdaptiveConcurrencyOptions) {
    const middleware = adaptiveConcurrency(options);
    const held = heldRoute();
    const app = new Hono();
    app.use(middleware);
    app.get('/held', async (c) => {
      await held.answer();
      return c.text('done');
    });
    app.get('/ok', (c) => c.text('ok'));
    app.get('/fail', (c) => c.text('failed', 500));
    app.get('/health', (c) => c.text('healthy'));
    return { server: getRequestListener(app.fetch), held, limiter: middleware.limiter };
  }

  it('answers 503 with Retry-After while the limit is full, and lets requests in once a slot is back', async () => {
    const { server, held, limiter } = appWith({ limit: 1 });
    const first = request(server)
      .get('/held')
      .then((response) => response);
    await held.reached();
    const refused = await request(server).get('/ok').expect(503);
    expect(refused.headers['retry-after']).toBe('1');
    expect(refused.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(refused.text).toBe('Service overloaded: retry in 1 second.');
    held.release();
    expect((await first).text).toBe('done');
    await request(server).get('/ok').expect(200, 'ok');
    expect(limiter.snapshot().inflight).toBe(0);
  });

  it('answers 429 when told to', async () => {
    const { server, held } = appWith({ limit: 1, statusCode: 429 });
    const first = request(server)
      .get('/held')
      .then((response) => response);
    await held.reached();
    const refused = await request(server).get('/ok').expect(429);
    expect(refused.text).toBe('Too many requests in flight: retry in 1 second.');
    held.release();
    await first;
  });

  it('backs the limit off on a 5xx', async () => {
    const { server, limiter } = appWith({ limit: { algorithm: 'aimd', initialLimit: 10, minLimit: 1 } });
    await request(server).get('/fail').expect(500);
    expect(limiter.snapshot().limit).toBe(9);
    await request(server).get('/ok').expect(200);
    expect(limiter.snapshot()).toMatchObject({ limit: 9, inflight: 0 });
  });

  it('sends an error thrown by partition to onError, taking no slot', async () => {
    const { server, limiter } = appWith({
      limit: 1,
      partitions: { critical: 1 },
      partition: () => {
        throw new Error('no partition');
      },
    });
    // Hono's default onError logs the error before answering 500.
    const logged = vi.spyOn(console, 'error').mockImplementation(() => {});
    await request(server).get('/ok').expect(500);
    expect(logged).toHaveBeenCalledWith(expect.objectContaining({ message: 'no partition' }));
    logged.mockRestore();
    expect(limiter.snapshot().inflight).toBe(0);
  });

  it('gives the slot back when the client goes away, leaving the limit as it was', async () => {
    const middleware = adaptiveConcurrency({ limit: { algorithm: 'aimd', initialLimit: 2, minLimit: 1 } });
    const held = heldRoute();
    let closed: Promise<void> = Promise.resolve();
    const app = new Hono<{ Bindings: { outgoing: ServerResponse } }>();
    app.use(middleware);
    app.get('/held', async (c) => {
      // Listening after the middleware did: once this runs, the slot was given back.
      closed = new Promise<void>((resolve) => c.env.outgoing.once('close', resolve));
      await held.answer();
      return c.text('done');
    });
    const server = createServer(getRequestListener(app.fetch));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const aborted = httpRequest({ port: (server.address() as AddressInfo).port, host: '127.0.0.1', path: '/held' });
      aborted.on('error', () => {});
      aborted.end();
      await held.reached();
      expect(middleware.limiter.snapshot().inflight).toBe(1);
      aborted.destroy();
      await closed;
      expect(middleware.limiter.snapshot()).toMatchObject({ limit: 2, inflight: 0 });
    } finally {
      held.release();
      server.close();
    }
  });

  it('lets a request wait in the queue for a slot', async () => {
    const { server, held } = appWith({ limit: 1, queue: { maxWaitMs: 10_000 } });
    const first = request(server)
      .get('/held')
      .then((response) => response);
    await held.reached();
    const second = request(server)
      .get('/ok')
      .then((response) => response);
    held.release();
    expect((await first).status).toBe(200);
    expect((await second).text).toBe('ok');
  });

  it('takes no slot for a skipped request', async () => {
    const { server, held } = appWith({ limit: 1, skip: (c) => c.req.path === '/health' });
    const first = request(server)
      .get('/held')
      .then((response) => response);
    await held.reached();
    await request(server).get('/health').expect(200, 'healthy');
    held.release();
    await first;
  });

  it('chooses the partition from the context: a partition over its share is refused, one under it let in', async () => {
    const { server, held, limiter } = appWith({
      limit: 2,
      partitions: { critical: 0.5, batch: 0.5 },
      partition: (c) => (c.req.header('x-priority') === 'critical' ? 'critical' : 'batch'),
    });
    const partitions: (string | undefined)[] = [];
    limiter.on('sample', (event) => partitions.push(event.partition));
    // Two batch requests borrow critical's idle share.
    const batch = [
      request(server)
        .get('/held')
        .then((r) => r),
      request(server)
        .get('/held')
        .then((r) => r),
    ];
    await held.reached(2);
    await request(server).get('/ok').expect(503);
    await request(server).get('/ok').set('x-priority', 'critical').expect(200, 'ok');
    held.release();
    await Promise.all(batch);
    expect(partitions).toEqual(['critical', 'batch', 'batch']);
  });
});

describe('adaptiveConcurrency on Hono without a Node response (app.request)', () => {
  it('gives the slot back once the chain answered, a 5xx backing the limit off', async () => {
    const middleware = adaptiveConcurrency({ limit: { algorithm: 'aimd', initialLimit: 10, minLimit: 1 } });
    const app = new Hono();
    app.use(middleware);
    app.get('/fail', (c) => c.text('failed', 500));
    expect((await app.request('/fail')).status).toBe(500);
    expect(middleware.limiter.snapshot()).toMatchObject({ limit: 9, inflight: 0 });
  });
});

describe('adaptiveConcurrency options', () => {
  it('are checked, naming the field', () => {
    expect(() => adaptiveConcurrency({ statusCode: 500 as never })).toThrow(expect.objectContaining({ field: 'statusCode' }));
    expect(() => adaptiveConcurrency({ statuscode: 429 } as never)).toThrow(/did you mean statusCode\?/);
  });
});
