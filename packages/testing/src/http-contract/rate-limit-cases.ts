import type { IncomingMessage } from 'node:http';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../virtual-clock.js';
import type { BackendContext } from './backends.js';
import { structured } from './structured.js';
import {
  type ContractFramework,
  type ContractHandler,
  type ContractLimiter,
  type ContractOptions,
  type ContractRequest,
  contractRateLimit,
  type HttpAdapter,
  proxiedRateLimit,
} from './types.js';

const ok: ContractHandler = (req) => ({ body: { remaining: req.rateLimit?.remaining ?? null } });

/** Counting, headers, bodies, skipping and client addresses, on memory and redis. */
export function rateLimitCases<Limit extends { limiter: ContractLimiter }, Store>(
  adapter: HttpAdapter<Limit, Store>,
  framework: ContractFramework<Limit>,
  backend: BackendContext,
): void {
  const cases: RateLimitContext<Limit> = {
    rateLimit: contractRateLimit(adapter),
    proxiedRateLimit: proxiedRateLimit(adapter),
    serve: framework.serve,
    store: backend.options,
    backend,
    framework,
  };
  countingCases(cases);
  bodyAndSkipCases(cases);
  clientAddressCases(cases);
}

/** What the cases of each topic share. */
interface RateLimitContext<Limit> {
  rateLimit: (options: ContractOptions) => Limit;
  /** `rateLimit` for an app with `trustProxy`. */
  proxiedRateLimit: (options: ContractOptions) => Limit;
  serve: ContractFramework<Limit>['serve'];
  /** The backend's options for the current test. */
  store: () => ContractOptions;
  backend: BackendContext;
  framework: ContractFramework<Limit>;
}

/** The field names of a response as the server sent them (supertest's `headers` are lower-cased). */
function rawNames(res: request.Response): string[] {
  const { rawHeaders } = (res as unknown as { res: IncomingMessage }).res;
  return rawHeaders.filter((_, i) => i % 2 === 0);
}

/** Counting, Retry-After, and the limits of a multi-limit rule. */
function countingCases<Limit>({ rateLimit, serve, store, backend }: RateLimitContext<Limit>): void {
  it('passes exactly the configured count, then answers 429 with headers and a text body', async () => {
    const app = serve({ routes: [{ path: '/', limits: [rateLimit({ perMinute: 5, ...store() })], handler: ok }] });
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

  it('names the fields it sets in lower case on the wire', async () => {
    const app = serve({ routes: [{ path: '/', limits: [rateLimit({ perMinute: 1, ...store() })], handler: ok }] });
    await request(app).get('/').expect(200);
    const denied = await request(app).get('/').expect(429);
    const sent = rawNames(denied).filter((name) => /^(ratelimit|ratelimit-policy|retry-after|cache-control)$/i.test(name));
    expect(sent.sort()).toEqual(['cache-control', 'ratelimit', 'ratelimit-policy', 'retry-after']);
  });

  it('lets a request through once the clock has moved by Retry-After', async () => {
    const app = serve({ use: [rateLimit({ qps: 1, burst: 3, ...store() })], routes: [{ path: '/', handler: ok }] });
    for (let i = 0; i < 3; i++) await request(app).get('/').expect(200);
    const denied = await request(app).get('/').expect(429);
    const retryAfter = Number(denied.headers['retry-after']);
    expect(retryAfter).toBe(1);
    backend.clock.advance(retryAfter * 1000 - 1);
    await request(app).get('/').expect(429);
    backend.clock.advance(1);
    await request(app).get('/').expect(200);
  });

  it('lists every limit of a multi-limit rule, and the tightest one decides', async () => {
    const limits = [
      { name: 'burst', qps: 1, burst: 2 },
      { name: 'hourly', perHour: 3 },
    ];
    const app = serve({ routes: [{ path: '/', limits: [rateLimit({ limits, ...store() })], handler: ok }] });
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
    backend.clock.advance(1000);
    await request(app).get('/').expect(200);
    backend.clock.advance(2000);
    const hourly = await request(app).get('/').expect(429);
    expect(hourly.headers['retry-after']).toBe('1197');
  });
}

/** Response bodies, skip() and the allow-list. */
function bodyAndSkipCases<Limit>({ rateLimit, serve, store, framework }: RateLimitContext<Limit>): void {
  it('answers problem+json and JSON bodies, and custom messages', async () => {
    const message = (req: ContractRequest, decision: { retryAfterMs: number }) => ({ path: req.path, retryMs: decision.retryAfterMs });
    const app = serve({
      routes: [
        { path: '/problem', limits: [rateLimit({ perMinute: 1, responseType: 'problem+json', ...store() })], handler: ok },
        { path: '/custom', limits: [rateLimit({ perMinute: 1, message, ...store() })], handler: ok },
      ],
    });
    await request(app).get('/problem').expect(200);
    const problem = await request(app).get('/problem').expect(429);
    expect(problem.headers['content-type']).toBe(framework.problemContentType ?? 'application/problem+json');
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
    const skip = (req: ContractRequest) => req.path === '/health';
    const app = serve({
      routes: [
        { path: '/health', limits: [rateLimit({ perMinute: 1, skip, ...store() })], handler: ok },
        { path: '/internal', limits: [rateLimit({ perMinute: 1, allowList: ['127.0.0.0/8', '::1'], ...store() })], handler: ok },
      ],
    });
    for (let i = 0; i < 3; i++) {
      const health = await request(app).get('/health').expect(200);
      expect(health.headers.ratelimit).toBeUndefined();
      expect(health.body).toEqual({ remaining: null });
      await request(app).get('/internal').expect(200);
    }
  });
}

/** Client addresses (IPv6 /64, trusted proxies) and counts per route. */
function clientAddressCases<Limit>({ rateLimit, proxiedRateLimit, serve, store }: RateLimitContext<Limit>): void {
  it('groups IPv6 clients by /64 (addresses from a trusted proxy)', async () => {
    const app = serve({ trustProxy: true, routes: [{ path: '/', limits: [proxiedRateLimit({ perMinute: 1, ...store() })], handler: ok }] });
    await request(app).get('/').set('X-Forwarded-For', '2001:db8:aa:1::1').expect(200);
    await request(app).get('/').set('X-Forwarded-For', '2001:db8:aa:1:ffff:ffff:ffff:ffff').expect(429);
    await request(app).get('/').set('X-Forwarded-For', '2001:db8:aa:2::1').expect(200);
    await request(app).get('/').set('X-Forwarded-For', '::ffff:198.51.100.1').expect(200);
    await request(app).get('/').set('X-Forwarded-For', '198.51.100.1').expect(429);
  });

  it('ignores a spoofed X-Forwarded-For unless the app trusts its proxy', async () => {
    const direct = serve({ routes: [{ path: '/', limits: [rateLimit({ perMinute: 2, ...store() })], handler: ok }] });
    await request(direct).get('/').set('X-Forwarded-For', '198.51.100.1').expect(200);
    await request(direct).get('/').set('X-Forwarded-For', '198.51.100.2').expect(200);
    await request(direct).get('/').set('X-Forwarded-For', '198.51.100.3').expect(429);

    const proxied = serve({
      trustProxy: true,
      routes: [{ path: '/', limits: [proxiedRateLimit({ perMinute: 1, ...store() })], handler: ok }],
    });
    await request(proxied).get('/').set('X-Forwarded-For', '198.51.100.1').expect(200);
    await request(proxied).get('/').set('X-Forwarded-For', '198.51.100.2').expect(200);
    await request(proxied).get('/').set('X-Forwarded-For', '198.51.100.1').expect(429);
  });

  it('works per route, each route with its own count', async () => {
    const app = serve({
      routes: [
        { path: '/a', limits: [rateLimit({ perMinute: 1, ...store() })], handler: ok },
        { path: '/b', limits: [rateLimit({ perMinute: 2, ...store() })], handler: ok },
        { path: '/open', handler: ok },
      ],
    });
    await request(app).get('/a').expect(200);
    await request(app).get('/a').expect(429);
    await request(app).get('/b').expect(200);
    await request(app).get('/b').expect(200);
    await request(app).get('/b').expect(429);
    for (let i = 0; i < 3; i++) await request(app).get('/open').expect(200);
  });
}

/** Store failures, a key callback answering '', and the RateLimit fields of two limiters on one request. */
export function plainCases<Limit extends { limiter: ContractLimiter }, Store>(
  adapter: HttpAdapter<Limit, Store>,
  framework: ContractFramework<Limit>,
): void {
  const cases: PlainContext<Limit> = {
    rateLimit: contractRateLimit(adapter),
    serve: framework.serve,
    tooManyHandler: adapter.tooManyHandler,
  };
  describe('store failures', () => storeFailureCases(cases));
  describe('a key read from the x-api-key header', () => emptyKeyCases(cases));
  describe('a handler option', () => handlerOptionCases(cases));
  describe('two limiters on one request', () => twoLimiterCases(cases));
}

/** What the cases of each topic share. */
interface PlainContext<Limit> {
  rateLimit: (options: ContractOptions) => Limit;
  serve: ContractFramework<Limit>['serve'];
  /** The adapter's `tooManyHandler`. */
  tooManyHandler: unknown;
}

const okText: ContractHandler = () => ({ body: 'ok' });

function storeFailureCases<Limit>({ rateLimit, serve }: PlainContext<Limit>): void {
  it('answers per the failure mode when the store fails: open lets the request through, closed answers 503', async () => {
    const failing = { execute: () => Promise.reject(new Error('store down')) };
    // Rules with the same limits on one shared store take a prefix each.
    const app = serve({
      routes: [
        { path: '/open', limits: [rateLimit({ qps: 1, store: failing, prefix: 'open' })], handler: ok },
        {
          path: '/closed',
          limits: [rateLimit({ qps: 1, store: failing, prefix: 'closed', onStoreError: 'closed', breaker: { coolDownMs: 2000 } })],
          handler: ok,
        },
        {
          path: '/closed-429',
          limits: [rateLimit({ qps: 1, store: failing, prefix: 'closed-429', onStoreError: 'closed', storeErrorStatusCode: 429 })],
          handler: ok,
        },
      ],
    });
    const open = await request(app).get('/open').expect(200);
    // Open: allowed, with every limit reported full (nothing is known to be spent).
    expect(open.body).toEqual({ remaining: 1 });
    const closed = await request(app).get('/closed').expect(503);
    expect(closed.headers['retry-after']).toBe('2');
    expect(closed.headers['cache-control']).toBe('no-store');
    // The service is at fault, not the client's rate.
    expect(closed.text).toContain('Service unavailable: retry in 2 seconds.');
    // storeErrorStatusCode picks the status; the breaker's default cool-down (1 s) sets Retry-After.
    const closed429 = await request(app).get('/closed-429').expect(429);
    expect(closed429.headers['retry-after']).toBe('1');
  });
}

function emptyKeyCases<Limit>({ rateLimit, serve }: PlainContext<Limit>): void {
  it('limits a request with an empty `x-api-key:` header by its IP: 200 then 429, never a 500', async () => {
    const key = (req: { get(name: string): string | undefined }) => req.get('x-api-key');
    const app = serve({
      routes: [{ path: '/api/search', limits: [rateLimit({ perMinute: 2, key })], handler: () => ({ body: 'results' }) }],
    });
    await request(app).get('/api/search').set('x-api-key', '').expect(200);
    await request(app).get('/api/search').expect(200);
    const denied = await request(app).get('/api/search').set('x-api-key', '').expect(429);
    expect(denied.headers['retry-after']).toBe('30');
    // A real key has a budget of its own.
    await request(app).get('/api/search').set('x-api-key', 'alpha').expect(200);
  });
}

function handlerOptionCases<Limit>({ rateLimit, serve, tooManyHandler }: PlainContext<Limit>): void {
  // Both names of the count: express-rate-limit's `max` and its newer `limit`.
  it.each(['limit', 'max'])(
    'answers a rejection through an async handler, with the headers set and the decision on the request (%s)',
    async (count) => {
      const limit = rateLimit({ windowMs: 60_000, [count]: 1, clock: new VirtualClock().now, handler: tooManyHandler });
      const app = serve({ routes: [{ path: '/', limits: [limit], handler: okText }] });
      await request(app).get('/').expect(200);
      const denied = await request(app).get('/').expect(429);
      expect(denied.body).toEqual({ tooMany: true, retryAfterMs: 60_000 });
      expect(denied.headers['retry-after']).toBe('60');
      expect(structured(denied.headers.ratelimit)).toEqual([['default', { r: 0, t: 60 }]]);
    },
  );
}

function twoLimiterCases<Limit>({ rateLimit, serve }: PlainContext<Limit>): void {
  const names = (value: string | undefined) => structured(value).map(([name, params]) => [name, params.r]);

  it('merges the RateLimit fields of an app-level and a route-level limiter', async () => {
    const clock = new VirtualClock();
    const app = serve({
      use: [rateLimit({ perMinute: 100, clock: clock.now })],
      routes: [
        { path: '/search', limits: [rateLimit({ limits: [{ qps: 2, burst: 2 }, { perDay: 1000 }], clock: clock.now })], handler: okText },
      ],
    });
    const passed = await request(app).get('/search').expect(200);
    expect(structured(passed.headers['ratelimit-policy'])).toEqual([
      ['default', { q: 100, w: 60 }],
      ['1s', { q: 2, w: 1 }],
      ['1d', { q: 1000, w: 86_400 }],
    ]);
    expect(names(passed.headers.ratelimit)).toEqual([
      ['default', 99],
      ['1s', 1],
      ['1d', 999],
    ]);
  });

  it('renames a route member whose name the app-level limiter already used', async () => {
    const clock = new VirtualClock();
    const app = serve({
      use: [rateLimit({ perMinute: 100, clock: clock.now })],
      routes: [{ path: '/', limits: [rateLimit({ perSecond: 1, clock: clock.now })], handler: okText }],
    });
    const passed = await request(app).get('/').expect(200);
    expect(structured(passed.headers['ratelimit-policy'])).toEqual([
      ['default', { q: 100, w: 60 }],
      ['default-2', { q: 1, w: 1 }],
    ]);
    expect(names(passed.headers.ratelimit)).toEqual([
      ['default', 99],
      ['default-2', 0],
    ]);
    const denied = await request(app).get('/').expect(429);
    expect(structured(denied.headers['ratelimit-policy'])).toEqual([
      ['default', { q: 100, w: 60 }],
      ['default-2', { q: 1, w: 1 }],
    ]);
    expect(names(denied.headers.ratelimit)).toEqual([
      ['default', 98],
      ['default-2', 0],
    ]);
  });
}
