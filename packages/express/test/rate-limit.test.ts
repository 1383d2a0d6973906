import { type LimiterOptions, RedisStore } from '@tollgate/core';
import { describeOnBackends } from '@tollgate/testing';
import express5, { type RequestHandler } from 'express';
import express4 from 'express4';
import request from 'supertest';
import { describe, it } from 'vitest';
import { rateLimit } from '../src/index.js';

// Express-only cases; the behaviour every adapter shares is in contract.test.ts.

const ok: RequestHandler = (req, res) => {
  res.json({ remaining: req.rateLimit?.remaining ?? null });
};

describe.each([
  ['Express 4', express4],
  ['Express 5', express5],
] as const)('%s', (_name, express) => {
  describeOnBackends(RedisStore, (backend) => {
    const store = () => backend.options() as LimiterOptions;

    it('works per router and per route, each with its own count', async () => {
      const app = express();
      const api = express.Router();
      api.use(rateLimit({ perMinute: 2, ...store() }));
      api.get('/a', ok);
      api.get('/b', rateLimit({ perMinute: 1, ...store() }), ok);
      app.use('/api', api);
      app.get('/open', ok);
      await request(app).get('/api/b').expect(200);
      await request(app).get('/api/b').expect(429);
      await request(app).get('/api/a').expect(429);
      for (let i = 0; i < 3; i++) await request(app).get('/open').expect(200);
    });
  });
});
