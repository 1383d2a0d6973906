import Router from '@koa/router';
import type { Store } from '@tollgate/core';
import { VirtualClock } from '@tollgate/testing';
import Koa3, { type Middleware } from 'koa';
import Koa2 from 'koa2';
import { parseList } from 'structured-headers';
import request from 'supertest';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { rateLimit } from '../src/index.js';
import { type Backend, startBackends } from './backends.js';

const FRAMEWORKS = [
  ['Koa 2', Koa2],
  ['Koa 3', Koa3],
] as const;

let backends: Backend[];
let closeBackends: () => Promise<void>;
beforeAll(async () => {
  ({ backends, close: closeBackends } = await startBackends());
});
afterAll(() => closeBackends());

const ok: Middleware = (ctx) => {
  ctx.body = { remaining: ctx.state.rateLimit?.remaining ?? null };
};

function structured(value: string | undefined): [unknown, Record<string, unknown>][] {
  return parseList(value ?? '').map(([item, params]) => [item, Object.fromEntries(params)]);
}

describe.each(FRAMEWORKS)('%s', (_name, Koa) => {
  const serve = (...middleware: Middleware[]) => {
    const app = new Koa();
    for (const m of middleware) app.use(m);
    return app.callback();
  };

  describe.each(['memory', 'redis'] as const)('on %s', (backendName) => {
    let clock: VirtualClock;
    const store = () => backends.find((backend) => backend.name === backendName)!.options(clock.now);
    beforeEach(() => {
      clock = new VirtualClock();
    });

    it('passes exactly the configured count, then answers 429 with headers and a text body', async () => {
      const app = serve(rateLimit({ perMinute: 5, ...store() }), ok);
      for (let i = 1; i <= 5; i++) {
        const res = await request(app).get('/').expect(200);
        expect(res.body).toEqual({ remaining: 5 - i });
        expect(structured(res.headers.ratelimit)).toEqual([['default', { r: 5 - i, t: i < 5 ? 12 * i : 12 }]]);
        expect(res.headers['retry-after']).toBeUndefined();
      }
      const denied = await request(app).get('/').expect(429);
      expect(denied.headers['content-type']).toBe('text/plain; charset=utf-8');
      expect(denied.text).toBe('Too many requests: retry in 12 seconds.');
      expect(denied.headers['retry-after']).toBe('12');
      expect(denied.headers['cache-control']).toBe('no-store');
      expect(structured(denied.headers['ratelimit-policy'])).toEqual([['default', { q: 5, w: 60 }]]);
      // Exhausted: t is the wait until a unit is back, as Retry-After says.
      expect(structured(denied.headers.ratelimit)).toEqual([['default', { r: 0, t: 12 }]]);
    });

    it('lets a request through once the clock has moved by Retry-After', async () => {
      const app = serve(rateLimit({ qps: 1, burst: 3, ...store() }), ok);
      for (let i = 0; i < 3; i++) await request(app).get('/').expect(200);
      const denied = await request(app).get('/').expect(429);
      const retryAfter = Number(denied.headers['retry-after']);
      expect(retryAfter).toBe(1);
      clock.advance(retryAfter * 1000 - 1);
      await request(app).get('/').expect(429);
      clock.advance(1);
      await request(app).get('/').expect(200);
    });

    it('lists every limit of a multi-limit rule, and the tightest one decides', async () => {
      const limits = [
        { name: 'burst', qps: 1, burst: 2 },
        { name: 'hourly', perHour: 3 },
      ];
      const app = serve(rateLimit({ limits, ...store() }), ok);
      const first = await request(app).get('/').expect(200);
      expect(structured(first.headers['ratelimit-policy'])).toEqual([
        ['burst', { q: 2, w: 2 }],
        ['hourly', { q: 3, w: 3600 }],
      ]);
      expect(structured(first.headers.ratelimit)).toEqual([
        ['burst', { r: 1, t: 1 }],
        ['hourly', { r: 2, t: 1200 }],
      ]);
      await request(app).get('/').expect(200);
      expect((await request(app).get('/').expect(429)).headers['retry-after']).toBe('1');
      clock.advance(1000);
      await request(app).get('/').expect(200);
      clock.advance(2000);
      expect((await request(app).get('/').expect(429)).headers['retry-after']).toBe('1197');
    });

    it('answers problem+json and custom messages', async () => {
      const problemApp = serve(rateLimit({ perMinute: 1, responseType: 'problem+json', ...store() }), ok);
      await request(problemApp).get('/').expect(200);
      const problem = await request(problemApp).get('/').expect(429);
      expect(problem.headers['content-type']).toBe('application/problem+json');
      expect(JSON.parse(problem.text)).toMatchObject({ type: 'about:blank', title: 'Too Many Requests', status: 429, retryAfter: 60 });
      const customApp = serve(
        rateLimit({ perMinute: 1, message: (ctx, decision) => ({ path: ctx.path, retryMs: decision.retryAfterMs }), ...store() }),
        ok,
      );
      await request(customApp).get('/x').expect(200);
      const custom = await request(customApp).get('/x').expect(429);
      expect(custom.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(custom.body).toEqual({ path: '/x', retryMs: 60_000 });
    });

    it('skips what skip() says and never limits the allow-list', async () => {
      const health = serve(rateLimit({ perMinute: 1, skip: (ctx) => ctx.path === '/health', ...store() }), ok);
      const internal = serve(rateLimit({ perMinute: 1, allowList: ['127.0.0.0/8', '::1'], ...store() }), ok);
      for (let i = 0; i < 3; i++) {
        const res = await request(health).get('/health').expect(200);
        expect(res.headers.ratelimit).toBeUndefined();
        expect(res.body).toEqual({ remaining: null });
        await request(internal).get('/').expect(200);
      }
    });

    it('groups IPv6 clients by /64 (addresses from a trusted proxy)', async () => {
      const app = new Koa({ proxy: true });
      app.use(rateLimit({ perMinute: 1, ...store() }));
      app.use(ok);
      const server = app.callback();
      await request(server).get('/').set('X-Forwarded-For', '2001:db8:aa:1::1').expect(200);
      await request(server).get('/').set('X-Forwarded-For', '2001:db8:aa:1:ffff:ffff:ffff:ffff').expect(429);
      await request(server).get('/').set('X-Forwarded-For', '2001:db8:aa:2::1').expect(200);
      await request(server).get('/').set('X-Forwarded-For', '::ffff:198.51.100.1').expect(200);
      await request(server).get('/').set('X-Forwarded-For', '198.51.100.1').expect(429);
    });

    it('ignores a spoofed X-Forwarded-For unless app.proxy is on', async () => {
      const direct = serve(rateLimit({ perMinute: 2, ...store() }), ok);
      await request(direct).get('/').set('X-Forwarded-For', '198.51.100.1').expect(200);
      await request(direct).get('/').set('X-Forwarded-For', '198.51.100.2').expect(200);
      await request(direct).get('/').set('X-Forwarded-For', '198.51.100.3').expect(429);

      const app = new Koa({ proxy: true });
      app.use(rateLimit({ perMinute: 1, ...store() }));
      app.use(ok);
      const proxied = app.callback();
      await request(proxied).get('/').set('X-Forwarded-For', '198.51.100.1').expect(200);
      await request(proxied).get('/').set('X-Forwarded-For', '198.51.100.2').expect(200);
      await request(proxied).get('/').set('X-Forwarded-For', '198.51.100.1').expect(429);
    });

    it('works per route with @koa/router, each route with its own count', async () => {
      const router = new Router();
      router.get('/a', rateLimit({ perMinute: 1, ...store() }), ok);
      router.get('/b', rateLimit({ perMinute: 2, ...store() }), ok);
      router.get('/open', ok);
      const app = serve(router.routes() as Middleware);
      await request(app).get('/a').expect(200);
      await request(app).get('/a').expect(429);
      await request(app).get('/b').expect(200);
      await request(app).get('/b').expect(200);
      await request(app).get('/b').expect(429);
      for (let i = 0; i < 3; i++) await request(app).get('/open').expect(200);
    });
  });

  describe('store failures', () => {
    it('answers per the failure policy when the store fails: open lets the request through, closed answers 503', async () => {
      const failing: Store = { execute: () => Promise.reject(new Error('store down')) };
      const open = await request(serve(rateLimit({ qps: 1, store: failing }), ok))
        .get('/')
        .expect(200);
      // Open: allowed, with every limit reported full (nothing is known to be spent).
      expect(open.body).toEqual({ remaining: 1 });
      const closedLimit = rateLimit({ qps: 1, store: failing, onStoreError: 'closed', breaker: { coolDownMs: 2000 } });
      const closed = await request(serve(closedLimit, ok)).get('/').expect(503);
      expect(closed.headers['retry-after']).toBe('2');
      expect(closed.headers['cache-control']).toBe('no-store');
      // storeErrorStatusCode picks the status; the breaker's default cool-down (1 s) sets Retry-After.
      const closed429Limit = rateLimit({ qps: 1, store: failing, onStoreError: 'closed', storeErrorStatusCode: 429 });
      const closed429 = await request(serve(closed429Limit, ok)).get('/').expect(429);
      expect(closed429.headers['retry-after']).toBe('1');
    });
  });
});
