import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import Fastify5, { type FastifyInstance, type FastifyReply } from 'fastify';
import Fastify4 from 'fastify4';
import request from 'supertest';
import { afterEach, describe, expect, it } from 'vitest';
import { type AdaptiveConcurrencyOptions, adaptiveConcurrency } from '../src/index.js';

const FRAMEWORKS = [
  ['Fastify 4', Fastify4 as unknown as typeof Fastify5],
  ['Fastify 5', Fastify5],
] as const;

/** A route that answers only once `release` is called: its requests hold their slots until then. */
function heldRoute() {
  const waiting: (() => void)[] = [];
  const closed: Promise<void>[] = [];
  let arrivals = 0;
  const listeners: (() => void)[] = [];
  const handler = (reply: FastifyReply) => {
    // Listening after the plugin did: once this runs, the slot was given back.
    closed.push(new Promise<void>((resolve) => reply.raw.once('close', resolve)));
    waiting.push(() => reply.send('done'));
    arrivals += 1;
    for (const listener of listeners.splice(0)) listener();
    return reply;
  };
  /** Resolves once `count` requests reached the route. */
  const reached = async (count = 1): Promise<void> => {
    while (arrivals < count) await new Promise<void>((resolve) => listeners.push(resolve));
  };
  const release = () => {
    for (const send of waiting.splice(0)) send();
  };
  return { handler, reached, release, closed };
}

describe.each(FRAMEWORKS)('adaptiveConcurrency on %s', (_name, Fastify) => {
  let app: FastifyInstance;
  afterEach(() => app.close());

  async function appWith(options: AdaptiveConcurrencyOptions) {
    const plugin = adaptiveConcurrency(options);
    const held = heldRoute();
    app = Fastify();
    await app.register(plugin);
    app.get('/held', (_request, reply) => held.handler(reply));
    app.get('/ok', async () => 'ok');
    app.get('/fail', async (_request, reply) => reply.code(500).send('failed'));
    app.get('/health', async () => 'healthy');
    await app.ready();
    return { server: app.server, held, limiter: plugin.limiter };
  }

  it('answers 503 with Retry-After while the limit is full, and lets requests in once a slot is back', async () => {
    const { server, held, limiter } = await appWith({ limit: 1 });
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
    const { server, held } = await appWith({ limit: 1, statusCode: 429 });
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
    const { server, limiter } = await appWith({ limit: { algorithm: 'aimd', initialLimit: 10, minLimit: 1 } });
    await request(server).get('/fail').expect(500);
    expect(limiter.snapshot().limit).toBe(9);
    await request(server).get('/ok').expect(200);
    expect(limiter.snapshot()).toMatchObject({ limit: 9, inflight: 0 });
  });

  it('gives the slot back when the client goes away, leaving the limit as it was', async () => {
    const { server, held, limiter } = await appWith({ limit: { algorithm: 'aimd', initialLimit: 2, minLimit: 1 } });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const aborted = httpRequest({ port, host: '127.0.0.1', path: '/held' });
    aborted.on('error', () => {});
    aborted.end();
    await held.reached();
    expect(limiter.snapshot().inflight).toBe(1);
    aborted.destroy();
    await held.closed[0];
    expect(limiter.snapshot()).toMatchObject({ limit: 2, inflight: 0 });
    await request(server).get('/ok').expect(200, 'ok');
  });

  it('sends an error thrown by partition to the error handler, taking no slot', async () => {
    const { server, limiter } = await appWith({
      limit: 1,
      partitions: { critical: 1 },
      partition: () => {
        throw new Error('no partition');
      },
    });
    await request(server).get('/ok').expect(500);
    expect(limiter.snapshot().inflight).toBe(0);
  });

  it('lets a request wait in the queue for a slot', async () => {
    const { server, held } = await appWith({ limit: 1, queue: { maxWaitMs: 10_000 } });
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
    const { server, held } = await appWith({ limit: 1, skip: (req) => req.url === '/health' });
    const first = request(server)
      .get('/held')
      .then((response) => response);
    await held.reached();
    await request(server).get('/health').expect(200, 'healthy');
    held.release();
    await first;
  });

  it('chooses the partition from the request: a partition over its share is refused, one under it let in', async () => {
    const { server, held } = await appWith({
      limit: 2,
      partitions: { critical: 0.5, batch: 0.5 },
      partition: (req) => (req.headers['x-priority'] === 'critical' ? 'critical' : 'batch'),
    });
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
  });
});

describe('adaptiveConcurrency options', () => {
  it('are checked, naming the field', () => {
    expect(() => adaptiveConcurrency({ statusCode: 500 as never })).toThrow(expect.objectContaining({ field: 'statusCode' }));
    expect(() => adaptiveConcurrency({ statuscode: 429 } as never)).toThrow(/did you mean statusCode\?/);
  });
});
