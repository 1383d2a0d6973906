import request from 'supertest';
import { expect, it } from 'vitest';
import type { BackendContext } from './backends.js';
import { structured } from './structured.js';
import { type ContractFramework, type ContractHandler, type ContractLimiter, contractRateLimit, type HttpAdapter } from './types.js';

// Limits chosen per request, a limit of 0, and a client named by its address or user key for the
// limiter's keyed operations: on both stores, through every adapter.

const ok: ContractHandler = (req) => ({ body: { remaining: req.rateLimit?.remaining ?? null } });

/** What a contract callback reads of a request: a header, by the framework's own `get`. */
type WithHeaders = { get(name: string): string | undefined };

const PLANS: Record<string, number> = { pro: 3, free: 1 };
const byPlan = (req: WithHeaders) => PLANS[req.get('x-plan') ?? 'free']!;

export function chosenLimitCases<Limit extends { limiter: ContractLimiter }, Store>(
  adapter: HttpAdapter<Limit, Store>,
  framework: ContractFramework<Limit>,
  backend: BackendContext,
): void {
  const rateLimit = contractRateLimit(adapter);
  const store = backend.options;
  const serveOne = (limit: Limit) => framework.serve({ routes: [{ path: '/', limits: [limit], handler: ok }] });

  it.each([
    ['a function', byPlan],
    ['an async function', async (req: WithHeaders) => byPlan(req)],
  ])('limits each request by the limit %s chooses for it, the headers following it, and a client keeps its count', async (_name, limit) => {
    const app = serveOne(rateLimit({ windowMs: 60_000, limit, ...store() }));
    for (let i = 1; i <= 3; i++) {
      const res = await request(app).get('/').set('X-Plan', 'pro').expect(200);
      expect(res.body).toEqual({ remaining: 3 - i });
      expect(structured(res.headers['ratelimit-policy'])).toEqual([['default', { q: 3, w: 60 }]]);
    }
    await request(app).get('/').set('X-Plan', 'pro').expect(429);
    // The same client on the free plan: its three requests still count, against a limit of 1.
    const free = await request(app).get('/').set('X-Plan', 'free').expect(429);
    expect(structured(free.headers['ratelimit-policy'])).toEqual([['default', { q: 1, w: 60 }]]);
    expect(structured(free.headers.ratelimit)).toEqual([['default', { r: 0, t: 60 }]]);
  });

  it.each([
    ['limit', { windowMs: 60_000, limit: 0 }],
    ['max', { windowMs: 60_000, max: 0 }],
  ])('refuses every request with { %s: 0 }, saying no wait would help', async (_name, rule) => {
    const app = serveOne(rateLimit({ ...rule, ...store() }));
    for (let i = 0; i < 2; i++) {
      const denied = await request(app).get('/').expect(429);
      expect(denied.text).toBe('Too many requests: the limit admits no more.');
      expect(denied.headers['retry-after']).toBeUndefined();
      expect(structured(denied.headers['ratelimit-policy'])).toEqual([['default', { q: 0, w: 60 }]]);
      expect(structured(denied.headers.ratelimit)).toEqual([['default', { r: 0 }]]);
      backend.clock.advance(60_000);
    }
  });

  it('resets and peeks a client by its address, in any spelling', async () => {
    const limit = rateLimit({ perMinute: 1, ...store() });
    const app = serveOne(limit);
    await request(app).get('/').expect(200);
    await request(app).get('/').expect(429);
    expect(await limit.limiter.peek('127.0.0.1')).toMatchObject({ allowed: false });
    await limit.limiter.reset('::ffff:127.0.0.1');
    expect(await limit.limiter.peek('127.0.0.1')).toMatchObject({ allowed: true });
    await request(app).get('/').expect(200);
  });

  it('resets a client by what the key function returns, and one it left to its address by ip:<address>', async () => {
    const limit = rateLimit({ perMinute: 1, key: (req: WithHeaders) => req.get('x-user'), ...store() });
    const app = serveOne(limit);
    for (const user of ['ann', undefined]) {
      const sent = () => (user === undefined ? request(app).get('/') : request(app).get('/').set('X-User', user));
      await sent().expect(200);
      await sent().expect(429);
      await limit.limiter.reset(user ?? 'ip:127.0.0.1');
      await sent().expect(200);
    }
  });
}
