import express5, { type RequestHandler } from 'express';
import express4 from 'express4';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { type AdaptiveConcurrencyOptions, adaptiveConcurrency } from '../src/index.js';

const FRAMEWORKS = [
  ['Express 4', express4],
  ['Express 5', express5],
] as const;

/** A route that answers only once `release` is called: its requests hold their slots until then. */
function heldRoute() {
  const waiting: (() => void)[] = [];
  let arrivals = 0;
  const listeners: (() => void)[] = [];
  const handler: RequestHandler = (_req, res) => {
    waiting.push(() => res.send('done'));
    arrivals += 1;
    for (const listener of listeners.splice(0)) listener();
  };
  /** Resolves once `count` requests reached the route. */
  const reached = async (count = 1): Promise<void> => {
    while (arrivals < count) await new Promise<void>((resolve) => listeners.push(resolve));
  };
  const release = () => {
    for (const send of waiting.splice(0)) send();
  };
  return { handler, reached, release };
}

describe.each(FRAMEWORKS)('adaptiveConcurrency on %s', (_name, express) => {
  function appWith(options: AdaptiveConcurrencyOptions) {
    const middleware = adaptiveConcurrency(options);
    const held = heldRoute();
    const app = express();
    app.use(middleware);
    app.get('/held', held.handler);
    app.get('/ok', (_req, res) => {
      res.send('ok');
    });
    app.get('/fail', (_req, res) => {
      res.status(500).send('failed');
    });
    app.get('/health', (_req, res) => {
      res.send('healthy');
    });
    return { app, held, limiter: middleware.limiter };
  }

  it('answers 503 with Retry-After while the limit is full, and lets requests in once a slot is back', async () => {
    const { app, held, limiter } = appWith({ limit: 1 });
    const first = request(app)
      .get('/held')
      .then((response) => response);
    await held.reached();
    const refused = await request(app).get('/ok').expect(503);
    expect(refused.headers['retry-after']).toBe('1');
    expect(refused.text).toBe('Service overloaded: retry in 1 second.');
    held.release();
    expect((await first).text).toBe('done');
    await request(app).get('/ok').expect(200, 'ok');
    expect(limiter.snapshot().inflight).toBe(0);
  });

  it('answers 429 when told to', async () => {
    const { app, held } = appWith({ limit: 1, statusCode: 429 });
    const first = request(app)
      .get('/held')
      .then((response) => response);
    await held.reached();
    const refused = await request(app).get('/ok').expect(429);
    expect(refused.text).toBe('Too many requests in flight: retry in 1 second.');
    held.release();
    await first;
  });

  it('backs the limit off on a 5xx', async () => {
    const { app, limiter } = appWith({ limit: { algorithm: 'aimd', initialLimit: 10, minLimit: 1 } });
    await request(app).get('/fail').expect(500);
    expect(limiter.snapshot().limit).toBe(9);
    await request(app).get('/ok').expect(200);
    expect(limiter.snapshot()).toMatchObject({ limit: 9, inflight: 0 });
  });

  it('lets a request wait in the queue for a slot', async () => {
    const { app, held } = appWith({ limit: 1, queue: { maxWaitMs: 10_000 } });
    const first = request(app)
      .get('/held')
      .then((response) => response);
    await held.reached();
    const second = request(app)
      .get('/ok')
      .then((response) => response);
    held.release();
    expect((await first).status).toBe(200);
    expect((await second).text).toBe('ok');
  });

  it('takes no slot for a skipped request', async () => {
    const { app, held } = appWith({ limit: 1, skip: (req) => req.path === '/health' });
    const first = request(app)
      .get('/held')
      .then((response) => response);
    await held.reached();
    await request(app).get('/health').expect(200, 'healthy');
    held.release();
    await first;
  });

  it('chooses the partition from the request: a partition over its share is refused, one under it let in', async () => {
    const { app, held } = appWith({
      limit: 2,
      partitions: { critical: 0.5, batch: 0.5 },
      partition: (req) => (req.get('x-priority') === 'critical' ? 'critical' : 'batch'),
    });
    // Two batch requests borrow critical's idle share.
    const batch = [
      request(app)
        .get('/held')
        .then((r) => r),
      request(app)
        .get('/held')
        .then((r) => r),
    ];
    await held.reached(2);
    await request(app).get('/ok').expect(503);
    await request(app).get('/ok').set('x-priority', 'critical').expect(200, 'ok');
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
