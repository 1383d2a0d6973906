import { VirtualClock } from '@tollgate/testing';
import express5, { type RequestHandler } from 'express';
import express4 from 'express4';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { rateLimit } from '../src/index.js';

// Express-only: a handler's error goes to next. The shared cases are in contract.test.ts.
const FRAMEWORKS = [
  ['Express 4', express4],
  ['Express 5', express5],
] as const;

const ok: RequestHandler = (_req, res) => {
  res.send('ok');
};

describe.each(FRAMEWORKS)('%s', (_name, express) => {
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
