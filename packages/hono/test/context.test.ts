import { getRequestListener } from '@hono/node-server';
import { VirtualClock } from '@tollgate/testing';
import { Hono } from 'hono';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { rateLimit } from '../src/index.js';

// Hono-only behaviour; the shared cases are in contract.test.ts.
const serve = (app: { fetch: (request: Request) => Response | Promise<Response> }) => getRequestListener(app.fetch);

describe('c.get(name)', () => {
  it("holds the decision with hono-rate-limiter's fields, under requestPropertyName when given", async () => {
    const clock = new VirtualClock(Date.UTC(2026, 0, 1));
    const app = new Hono()
      .use(rateLimit({ windowMs: 60_000, limit: 5, clock: clock.now, key: (c) => c.req.header('x-user') }))
      .use(rateLimit({ windowMs: 60_000, limit: 3, clock: clock.now, requestPropertyName: 'perMinute' }))
      .get('/', (c) => {
        const { limit, used, remaining, resetTime, key } = c.get('rateLimit')!;
        return c.json({ limit, used, remaining, resetTime, key, other: (c.get('perMinute' as 'rateLimit') as { limit: number }).limit });
      });
    const res = await request(serve(app)).get('/').set('x-user', 'u1').expect(200);
    expect(res.body).toEqual({
      limit: 5,
      used: 1,
      remaining: 4,
      resetTime: new Date(Date.UTC(2026, 0, 1) + 60_000).toISOString(),
      key: 'u1',
      other: 3,
    });
  });

  it('is unset on a skipped request', async () => {
    const app = new Hono()
      .use(rateLimit({ perMinute: 1, skip: () => true }))
      .get('/', (c) => c.json({ set: c.get('rateLimit') !== undefined }));
    expect((await request(serve(app)).get('/').expect(200)).body).toEqual({ set: false });
  });
});

describe('the response', () => {
  it('keeps the rate-limit fields when the handler returns a Response of its own', async () => {
    const app = new Hono().get('/', rateLimit({ perMinute: 2 }), () => new Response('raw'));
    const res = await request(serve(app)).get('/').expect(200);
    expect(res.text).toBe('raw');
    expect(res.headers.ratelimit).toBe('"default";r=1;t=30');
  });

  it('lets the handler answer, or pass the request on with next(), and resetKey start a client afresh', async () => {
    const limit = rateLimit({
      perMinute: 1,
      clock: new VirtualClock().now,
      handler: async (c, next, rejection) => {
        if (c.req.header('x-pass') === 'yes') return next();
        return c.json({ slowDown: true, retryAfter: rejection.headers.find(([name]) => name === 'retry-after')?.[1] }, 429);
      },
    });
    const app = serve(new Hono().get('/', limit, (c) => c.text('ok')));
    await request(app).get('/').expect(200);
    expect((await request(app).get('/').expect(429)).body).toEqual({ slowDown: true, retryAfter: '60' });
    expect((await request(app).get('/').set('x-pass', 'yes').expect(200)).text).toBe('ok');
    await limit.resetKey('127.0.0.1');
    await request(app).get('/').expect(200);
  });
});

describe('off @hono/node-server (app.request, Bun, Deno)', () => {
  const local = () => ({ remote: { address: '192.0.2.1', addressType: 'IPv4' as const } });

  it('answers a coded error naming getConnInfo when none is given', async () => {
    const app = new Hono().get('/', rateLimit({ perMinute: 1 }), (c) => c.text('ok'));
    app.onError((error, c) => c.json({ code: (error as { code?: string }).code, field: (error as { field?: string }).field }, 500));
    const res = await app.request('/');
    expect(await res.json()).toEqual({ code: 'ERR_TOLLGATE_INVALID_OPTION', field: 'getConnInfo' });
  });

  it("counts by the runtime's getConnInfo and refunds failed requests once the response is known", async () => {
    const limit = rateLimit({ perMinute: 2, getConnInfo: local, skipFailedRequests: true, clock: new VirtualClock().now });
    const app = new Hono().get('/', limit, (c) => (c.req.query('fail') === undefined ? c.text('ok') : c.text('failed', 500)));
    // Each failed request was given back: the next finds the whole budget but its own unit.
    for (let i = 0; i < 3; i++) {
      const failed = await app.request('/?fail');
      expect([failed.status, failed.headers.get('ratelimit')]).toEqual([500, '"default";r=1;t=30']);
    }
    expect((await app.request('/')).status).toBe(200);
    expect((await app.request('/')).status).toBe(200);
    expect((await app.request('/')).status).toBe(429);
  });

  it('holds a shaped request, and drops it when its signal aborts first', async () => {
    const clock = new VirtualClock();
    const handled: string[] = [];
    const limit = rateLimit({ algorithm: 'leaky-bucket', mode: 'shaping', rate: 10, maxDelay: '1s', getConnInfo: local, clock: clock.now });
    const app = new Hono().get('/:name', limit, (c) => {
      handled.push(c.req.param('name'));
      return c.text('ok');
    });
    expect((await app.request('/first')).status).toBe(200);
    const aborted = new AbortController();
    const held = app.request(new Request('http://localhost/second', { signal: aborted.signal }));
    aborted.abort();
    expect((await held).status).toBe(499);
    const third = await app.request('/third');
    expect(third.status).toBe(200);
    expect(handled).toEqual(['first', 'third']);
  });
});
