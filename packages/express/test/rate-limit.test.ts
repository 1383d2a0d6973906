import type { Store } from '@tollgate/core';
import { VirtualClock } from '@tollgate/testing';
import express5, { type RequestHandler } from 'express';
import express4 from 'express4';
import { parseList } from 'structured-headers';
import request from 'supertest';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { rateLimit } from '../src/index.js';
import { type Backend, startBackends } from './backends.js';

const FRAMEWORKS = [
  ['Express 4', express4],
  ['Express 5', express5],
] as const;

let backends: Backend[];
let closeBackends: () => Promise<void>;
beforeAll(async () => {
  ({ backends, close: closeBackends } = await startBackends());
});
afterAll(() => closeBackends());

const ok: RequestHandler = (req, res) => {
  res.json({ remaining: req.rateLimit?.remaining ?? null });
};

function structured(value: string | undefined): [unknown, Record<string, unknown>][] {
  return parseList(value ?? '').map(([item, params]) => [item, Object.fromEntries(params)]);
}

describe.each(FRAMEWORKS)('%s', (_name, express) => {
  describe.each(['memory', 'redis'] as const)('on %s', (backendName) => {
    let clock: VirtualClock;
    const store = () => backends.find((backend) => backend.name === backendName)!.options(clock.now);
    beforeEach(() => {
      clock = new VirtualClock();
    });

    it('passes exactly the configured count, then answers 429 with headers and a text body', async () => {
      const app = express();
      app.get('/', rateLimit({ perMinute: 5, ...store() }), ok);
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
      const app = express();
      app.use(rateLimit({ qps: 1, burst: 3, ...store() }));
      app.get('/', ok);
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
      const app = express();
      const limits = [
        { name: 'burst', qps: 1, burst: 2 },
        { name: 'hourly', perHour: 3 },
      ];
      app.get('/', rateLimit({ limits, ...store() }), ok);
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
      const hourly = await request(app).get('/').expect(429);
      expect(hourly.headers['retry-after']).toBe('1197');
    });

    it('answers problem+json and JSON bodies, and custom messages', async () => {
      const app = express();
      app.get('/problem', rateLimit({ perMinute: 1, responseType: 'problem+json', ...store() }), ok);
      app.get(
        '/custom',
        rateLimit({ perMinute: 1, message: (req, decision) => ({ path: req.path, retryMs: decision.retryAfterMs }), ...store() }),
        ok,
      );
      await request(app).get('/problem').expect(200);
      const problem = await request(app).get('/problem').expect(429);
      expect(problem.headers['content-type']).toBe('application/problem+json');
      expect(JSON.parse(problem.text)).toEqual({
        type: 'about:blank',
        title: 'Too Many Requests',
        status: 429,
        detail: 'Too many requests: retry in 60 seconds.',
        limit: 'default',
        retryAfter: 60,
      });
      await request(app).get('/custom').expect(200);
      const custom = await request(app).get('/custom').expect(429);
      expect(custom.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(custom.body).toEqual({ path: '/custom', retryMs: 60_000 });
    });

    it('skips what skip() says and never limits the allow-list', async () => {
      const app = express();
      app.get('/health', rateLimit({ perMinute: 1, skip: (req) => req.path === '/health', ...store() }), ok);
      app.get('/internal', rateLimit({ perMinute: 1, allowList: ['127.0.0.0/8', '::1'], ...store() }), ok);
      for (let i = 0; i < 3; i++) {
        const health = await request(app).get('/health').expect(200);
        expect(health.headers.ratelimit).toBeUndefined();
        expect(health.body).toEqual({ remaining: null });
        await request(app).get('/internal').expect(200);
      }
    });

    it('groups IPv6 clients by /64 (addresses from a trusted proxy)', async () => {
      const app = express();
      app.set('trust proxy', 'loopback');
      app.get('/', rateLimit({ perMinute: 1, ...store() }), ok);
      await request(app).get('/').set('X-Forwarded-For', '2001:db8:aa:1::1').expect(200);
      await request(app).get('/').set('X-Forwarded-For', '2001:db8:aa:1:ffff:ffff:ffff:ffff').expect(429);
      await request(app).get('/').set('X-Forwarded-For', '2001:db8:aa:2::1').expect(200);
      await request(app).get('/').set('X-Forwarded-For', '::ffff:198.51.100.1').expect(200);
      await request(app).get('/').set('X-Forwarded-For', '198.51.100.1').expect(429);
    });

    it('ignores a spoofed X-Forwarded-For unless trust proxy is on', async () => {
      const direct = express();
      direct.get('/', rateLimit({ perMinute: 2, ...store() }), ok);
      await request(direct).get('/').set('X-Forwarded-For', '198.51.100.1').expect(200);
      await request(direct).get('/').set('X-Forwarded-For', '198.51.100.2').expect(200);
      await request(direct).get('/').set('X-Forwarded-For', '198.51.100.3').expect(429);

      const proxied = express();
      proxied.set('trust proxy', 'loopback');
      proxied.get('/', rateLimit({ perMinute: 1, ...store() }), ok);
      await request(proxied).get('/').set('X-Forwarded-For', '198.51.100.1').expect(200);
      await request(proxied).get('/').set('X-Forwarded-For', '198.51.100.2').expect(200);
      await request(proxied).get('/').set('X-Forwarded-For', '198.51.100.1').expect(429);
    });

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

  describe('store failures', () => {
    it('answers per the failure policy when the store fails: open lets the request through, closed answers 503', async () => {
      const failing: Store = { execute: () => Promise.reject(new Error('store down')) };
      const app = express();
      app.get('/open', rateLimit({ qps: 1, store: failing }), ok);
      app.get('/closed', rateLimit({ qps: 1, store: failing, onStoreError: 'closed', breaker: { coolDownMs: 2000 } }), ok);
      app.get('/closed-429', rateLimit({ qps: 1, store: failing, onStoreError: 'closed', storeErrorStatusCode: 429 }), ok);
      const open = await request(app).get('/open').expect(200);
      // Open: allowed, with every limit reported full (nothing is known to be spent).
      expect(open.body).toEqual({ remaining: 1 });
      const closed = await request(app).get('/closed').expect(503);
      expect(closed.headers['retry-after']).toBe('2');
      expect(closed.headers['cache-control']).toBe('no-store');
      // storeErrorStatusCode picks the status; the breaker's default cool-down (1 s) sets Retry-After.
      const closed429 = await request(app).get('/closed-429').expect(429);
      expect(closed429.headers['retry-after']).toBe('1');
    });
  });
});
