import { VirtualClock } from '@tollgate/testing';
import express5, { type RequestHandler } from 'express';
import express4 from 'express4';
import { parseList } from 'structured-headers';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { rateLimit } from '../src/index.js';

const FRAMEWORKS = [
  ['Express 4', express4],
  ['Express 5', express5],
] as const;

const ok: RequestHandler = (_req, res) => {
  res.send('ok');
};

const namesIn = (value: string | undefined) => parseList(value ?? '').map(([name, params]) => [name, Object.fromEntries(params)]);

describe.each(FRAMEWORKS)('%s', (_name, express) => {
  it('answers a rejection through an async handler, with the headers set and the decision on req', async () => {
    const app = express();
    app.get(
      '/',
      rateLimit({
        windowMs: 60_000,
        limit: 1,
        clock: new VirtualClock().now,
        handler: async (req, res, _next, rejection) => {
          await Promise.resolve();
          res.status(rejection.status).json({ tooMany: true, retryAfterMs: req.rateLimit?.retryAfterMs });
        },
      }),
      ok,
    );
    await request(app).get('/').expect(200);
    const denied = await request(app).get('/').expect(429);
    expect(denied.body).toEqual({ tooMany: true, retryAfterMs: 60_000 });
    expect(denied.headers['retry-after']).toBe('60');
    expect(namesIn(denied.headers.ratelimit)).toEqual([['default', { r: 0, t: 60 }]]);
  });

  it("passes a handler's error to next", async () => {
    const app = express();
    app.get(
      '/',
      rateLimit({
        perMinute: 1,
        clock: new VirtualClock().now,
        handler: () => {
          throw new Error('handler failed');
        },
      }),
      ok,
    );
    app.use(((error, _req, res, _next) => {
      res.status(418).send(error.message);
    }) as express5.ErrorRequestHandler);
    await request(app).get('/').expect(200);
    const failed = await request(app).get('/').expect(418);
    expect(failed.text).toBe('handler failed');
  });

  it('merges the RateLimit fields of an app-level and a route-level limiter', async () => {
    const clock = new VirtualClock();
    const app = express();
    app.use(rateLimit({ perMinute: 100, clock: clock.now }));
    app.get('/search', rateLimit({ limits: [{ qps: 2, burst: 2 }, { perDay: 1000 }], clock: clock.now }), ok);
    const passed = await request(app).get('/search').expect(200);
    expect(namesIn(passed.headers['ratelimit-policy'])).toEqual([
      ['default', { q: 100, w: 60 }],
      ['1s', { q: 2, w: 1 }],
      ['1d', { q: 1000, w: 86_400 }],
    ]);
    expect(namesIn(passed.headers.ratelimit).map(([name, params]) => [name, (params as { r: number }).r])).toEqual([
      ['default', 99],
      ['1s', 1],
      ['1d', 999],
    ]);
  });

  it('renames a route member whose name the app-level limiter already used', async () => {
    const clock = new VirtualClock();
    const app = express();
    app.use(rateLimit({ perMinute: 100, clock: clock.now }));
    app.get('/', rateLimit({ perSecond: 1, clock: clock.now }), ok);
    await request(app).get('/').expect(200);
    const denied = await request(app).get('/').expect(429);
    expect(namesIn(denied.headers['ratelimit-policy'])).toEqual([
      ['default', { q: 100, w: 60 }],
      ['default-2', { q: 1, w: 1 }],
    ]);
    expect(namesIn(denied.headers.ratelimit).map(([name, params]) => [name, (params as { r: number }).r])).toEqual([
      ['default', 98],
      ['default-2', 0],
    ]);
  });
});
