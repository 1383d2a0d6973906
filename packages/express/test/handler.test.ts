import { structured, VirtualClock } from '@tollgate/testing';
import express5, { type RequestHandler } from 'express';
import express4 from 'express4';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { rateLimit } from '../src/index.js';

// Express-only: the handler's (req, res, next, rejection) signature and error path.
const FRAMEWORKS = [
  ['Express 4', express4],
  ['Express 5', express5],
] as const;

const ok: RequestHandler = (_req, res) => {
  res.send('ok');
};

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
    expect(structured(denied.headers.ratelimit)).toEqual([['default', { r: 0, t: 60 }]]);
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
});
