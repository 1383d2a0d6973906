import express5 from 'express';
import express4 from 'express4';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { rateLimit } from '../src/index.js';

describe.each([
  ['Express 4', express4],
  ['Express 5', express5],
] as const)('%s: the README example keyed by x-api-key', (_name, express) => {
  it('limits a request with an empty `x-api-key:` header by its IP: 200 then 429, never a 500', async () => {
    const app = express();
    app.get('/api/search', rateLimit({ perMinute: 2, key: (req) => req.get('x-api-key') }), (_req, res) => {
      res.send('results');
    });
    await request(app).get('/api/search').set('x-api-key', '').expect(200);
    await request(app).get('/api/search').expect(200);
    const denied = await request(app).get('/api/search').set('x-api-key', '').expect(429);
    expect(denied.headers['retry-after']).toBe('30');
    // A real key has a budget of its own.
    await request(app).get('/api/search').set('x-api-key', 'alpha').expect(200);
  });
});
