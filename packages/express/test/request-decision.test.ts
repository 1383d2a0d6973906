import express5, { type RequestHandler } from 'express';
import express4 from 'express4';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { rateLimit } from '../src/index.js';

const remaining: RequestHandler = (req, res) => {
  res.json({ remaining: req.rateLimit?.remaining ?? null, own: Object.hasOwn(req, 'rateLimit') });
};

describe.each([
  ['Express 4', express4],
  ['Express 5', express5],
] as const)('req.rateLimit on %s', (_name, express) => {
  it('is readable in a mounted app of its own prototype, and is no own property of the request', async () => {
    const app = express();
    const inner = express();
    inner.get('/', remaining);
    app.use(rateLimit({ perMinute: 5 }));
    app.use('/inner', inner);
    const res = await request(app).get('/inner').expect(200);
    expect(res.body).toEqual({ remaining: 4, own: false });
  });
});
