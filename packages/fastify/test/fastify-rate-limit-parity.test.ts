/**
 * The behavioural tests of @fastify/rate-limit 11.2.0 (`78a7d41`: test/global-rate-limit.test.js,
 * test/route-rate-limit.test.js) for the options Tollgate accepts, each assertion as the peer wrote
 * it, with `headers: 'legacy'` for its X-RateLimit-* fields and a virtual clock started at 0 for
 * its mocked timers (so the epoch seconds of Tollgate's X-RateLimit-Reset are the peer's seconds
 * to go). Differences, each asserted where the peer asserts the other behaviour:
 * - the 429 body is Tollgate's (here `responseType: 'json'`), sent with `reply`, not an error
 *   thrown to the error handler: a `handler` that throws does that (see plugin.test.ts);
 * - `keyGenerator` is `key`, `allowList` as a function is `skip`;
 * - a route's `config.rateLimit` adds its rule to the plugin's (none here: `global: false` as the peer's tests have it);
 * - `max: NaN` and a negative `timeWindow` are refused, not replaced by the defaults;
 * - the HEAD route Fastify adds beside a GET route shares the GET route's own count, as it shares
 *   the plugin's (the peer counts a route's HEAD apart: a second budget);
 * - X-RateLimit-Reset is in epoch seconds (as express-rate-limit and @nestjs/throttler send it),
 *   the peer's the seconds to go: the same while the window began at 0.
 * Options Tollgate refuses (ban, onExceeding, onExceeded, errorResponseBuilder, addHeaders,
 * enableDraftSpec, continueExceeding, exponentialBackoff, groupId, store classes, timeWindow functions)
 * have no case here: peer-options.test.ts checks each is refused with Tollgate's name.
 */
import { VirtualClock } from '@tollgate/testing';
import Fastify from 'fastify';
import { describe, expect, it, vi } from 'vitest';
import { type RateLimitPluginOptions, rateLimit } from '../src/index.js';

const legacy = (clock: VirtualClock, options: RateLimitPluginOptions) =>
  ({ headers: 'legacy', responseType: 'json', clock: clock.now, ...options }) as RateLimitPluginOptions;

describe('global-rate-limit.test.js', () => {
  it.each([1000, '1s'])('Basic, and With text timeWindow (%s)', async (timeWindow) => {
    const clock = new VirtualClock(0);
    const fastify = Fastify();
    await fastify.register(rateLimit, legacy(clock, { max: 2, timeWindow }));
    fastify.get('/', async () => 'hello!');

    let res = await fastify.inject('/');
    expect(res.statusCode).toBe(200);
    expect(res.headers['x-ratelimit-limit']).toBe('2');
    expect(res.headers['x-ratelimit-remaining']).toBe('1');

    res = await fastify.inject('/');
    expect(res.statusCode).toBe(200);
    expect(res.headers['x-ratelimit-limit']).toBe('2');
    expect(res.headers['x-ratelimit-remaining']).toBe('0');

    res = await fastify.inject('/');
    expect(res.statusCode).toBe(429);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.headers['x-ratelimit-limit']).toBe('2');
    expect(res.headers['x-ratelimit-remaining']).toBe('0');
    expect(res.headers['retry-after']).toBe('1');
    // Difference: Tollgate's JSON body.
    expect(JSON.parse(res.payload)).toEqual({
      error: 'Too Many Requests',
      message: 'Too many requests: retry in 1 second.',
      limit: 'default',
      retryAfter: 1,
    });

    clock.advance(1100);
    res = await fastify.inject('/');
    expect(res.statusCode).toBe(200);
    expect(res.headers['x-ratelimit-limit']).toBe('2');
    expect(res.headers['x-ratelimit-remaining']).toBe('1');
  });

  it.each([
    [['127.0.0.1'], [200, 200, 200]],
    [['1.1.1.1'], [200, 200, 429]],
  ])('With ips allowList %o', async (allowList, statuses) => {
    const fastify = Fastify();
    await fastify.register(rateLimit, { max: 2, timeWindow: '2s', allowList });
    fastify.get('/', async () => 'hello!');
    for (const status of statuses) expect((await fastify.inject('/')).statusCode).toBe(status);
  });

  it.each([
    ['a function', (onRequest: () => void) => onRequest],
    ['an array', (onRequest: () => void) => [onRequest]],
  ])('does not override the onRequest given as %s', async (_form, wrap) => {
    const fastify = Fastify();
    await fastify.register(rateLimit, legacy(new VirtualClock(0), { max: 2, timeWindow: 1000 }));
    const called = vi.fn((_req: unknown, _reply: unknown, next: () => void) => next());
    fastify.get('/', { onRequest: wrap(called as never) as never }, async () => 'hello!');
    const res = await fastify.inject('/');
    expect(called).toHaveBeenCalledTimes(1);
    expect(res.statusCode).toBe(200);
    expect(res.headers['x-ratelimit-limit']).toBe('2');
    expect(res.headers['x-ratelimit-remaining']).toBe('1');
  });

  it('variable max', async () => {
    const fastify = Fastify();
    const max = vi.fn((req: { headers: Record<string, unknown> }) => +String(req.headers['secret-max']));
    await fastify.register(rateLimit, legacy(new VirtualClock(0), { max, timeWindow: 1000 }));
    fastify.get('/', async () => 'hello');
    const res = await fastify.inject({ url: '/', headers: { 'secret-max': '50' } });
    expect(max).toHaveBeenCalled();
    expect(res.statusCode).toBe(200);
    expect(res.headers['x-ratelimit-limit']).toBe('50');
    expect(res.headers['x-ratelimit-remaining']).toBe('49');
  });

  it('stops fastify lifecycle after onRequest and before preValidation', async () => {
    const fastify = Fastify();
    await fastify.register(rateLimit, { max: 1, timeWindow: 1000 });
    let preValidationCallCount = 0;
    fastify.get(
      '/',
      {
        preValidation: (_req, _reply, next) => {
          preValidationCallCount++;
          next();
        },
      },
      async () => 'hello!',
    );
    expect((await fastify.inject('/')).statusCode).toBe(200);
    expect((await fastify.inject('/')).statusCode).toBe(429);
    expect(preValidationCallCount).toBe(1);
  });

  it('exposeHeadRoutes', async () => {
    const fastify = Fastify({ exposeHeadRoutes: true });
    await fastify.register(rateLimit, legacy(new VirtualClock(0), { max: 10, timeWindow: 1000 }));
    fastify.get('/', async () => 'hello!');
    const res = await fastify.inject({ url: '/', method: 'GET' });
    const resHead = await fastify.inject({ url: '/', method: 'HEAD' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['x-ratelimit-limit']).toBe('10');
    expect(res.headers['x-ratelimit-remaining']).toBe('9');
    expect(resHead.statusCode).toBe(200);
    expect(resHead.headers['x-ratelimit-limit']).toBe('10');
    expect(resHead.headers['x-ratelimit-remaining']).toBe('8');
  });

  it('on preHandler hook (keyGenerator is key)', async () => {
    const fastify = Fastify();
    await fastify.register(rateLimit, {
      max: 1,
      timeWindow: 10000,
      hook: 'preHandler',
      key: (req) => (req as unknown as { userId: string }).userId || req.ip,
    });
    fastify.decorateRequest('userId', '');
    fastify.addHook('preHandler', async (req) => {
      const { userId } = req.query as { userId?: string };
      if (userId) (req as unknown as { userId: string }).userId = userId;
    });
    fastify.get('/', async () => 'fastify is awesome !');
    const send = (userId?: string) => fastify.inject({ url: '/', method: 'GET', query: userId ? { userId } : {} });
    const statuses = [];
    for (const userId of [undefined, undefined, '123', '123', '234']) statuses.push((await send(userId)).statusCode);
    expect(statuses).toEqual([200, 429, 200, 429, 200]);
  });

  it('When passing NaN to max, or a negative timeWindow (difference: refused, not defaulted)', async () => {
    await expect(Fastify().register(rateLimit, { max: Number.NaN, timeWindow: 10000 })).rejects.toMatchObject({
      code: 'ERR_TOLLGATE_INVALID_SPEC',
    });
    await expect(Fastify().register(rateLimit, { max: 2, timeWindow: -5 })).rejects.toMatchObject({ code: 'ERR_TOLLGATE_INVALID_SPEC' });
  });
});

const defaultRouteConfig = { rateLimit: { max: 2, timeWindow: 1000 }, someOtherPlugin: { someValue: 1 } };

describe('route-rate-limit.test.js', () => {
  it('Basic', async () => {
    const clock = new VirtualClock(0);
    const fastify = Fastify();
    await fastify.register(rateLimit, legacy(clock, { global: false }));
    fastify.get('/', { config: defaultRouteConfig }, async () => 'hello!');

    let res = await fastify.inject('/');
    expect(res.statusCode).toBe(200);
    expect(res.headers['x-ratelimit-limit']).toBe('2');
    expect(res.headers['x-ratelimit-remaining']).toBe('1');
    expect(res.headers['x-ratelimit-reset']).toBe('1');

    clock.advance(1);
    res = await fastify.inject('/');
    expect(res.statusCode).toBe(200);
    expect(res.headers['x-ratelimit-limit']).toBe('2');
    expect(res.headers['x-ratelimit-remaining']).toBe('0');
    expect(res.headers['x-ratelimit-reset']).toBe('1');

    clock.advance(500);
    res = await fastify.inject('/');
    expect(res.statusCode).toBe(429);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.headers['x-ratelimit-limit']).toBe('2');
    expect(res.headers['x-ratelimit-remaining']).toBe('0');
    expect(res.headers['x-ratelimit-reset']).toBe('1');
    expect(res.headers['retry-after']).toBe('1');

    clock.advance(1100);
    res = await fastify.inject('/');
    expect(res.statusCode).toBe(200);
    expect(res.headers['x-ratelimit-limit']).toBe('2');
    expect(res.headers['x-ratelimit-remaining']).toBe('1');
    // Difference: X-RateLimit-Reset is in epoch seconds (the window began at 1601 ms), the peer's the seconds to go ('1').
    expect(res.headers['x-ratelimit-reset']).toBe('3');
  });

  it('no rate limit without settings', async () => {
    const fastify = Fastify();
    await fastify.register(rateLimit, { global: false, headers: 'legacy' });
    fastify.get('/', async () => 'hello!');
    const res = await fastify.inject('/');
    expect(res.statusCode).toBe(200);
    expect(res.headers['x-ratelimit-limit']).toBeUndefined();
    expect(res.headers['x-ratelimit-remaining']).toBeUndefined();
  });

  it('no rate limit with bad rate-limit parameters (Tollgate names the field)', async () => {
    const fastify = Fastify();
    await fastify.register(rateLimit, { max: 2, timeWindow: 1000 });
    expect(() => fastify.get('/', { config: { ...defaultRouteConfig, rateLimit: (() => {}) as never } }, async () => 'hello!')).toThrow(
      'config.rateLimit must be an object of options, a hook made by rateLimitHook, or false',
    );
  });

  it('works with existing route config', async () => {
    const fastify = Fastify();
    await fastify.register(rateLimit, { global: false, headers: 'legacy' });
    fastify.get('/', { config: defaultRouteConfig }, async () => 'hello!');
    await fastify.ready();
    const res = await fastify.inject('/');
    expect(res.headers['x-ratelimit-limit']).toBe('2');
    expect(res.headers['x-ratelimit-remaining']).toBe('1');
  });

  it('route can disable the global limit', async () => {
    const fastify = Fastify();
    await fastify.register(rateLimit, { max: 2, timeWindow: 1000, headers: 'legacy' });
    fastify.get('/', { config: { ...defaultRouteConfig, rateLimit: false } }, async () => 'hello!');
    const res = await fastify.inject('/');
    expect(res.statusCode).toBe(200);
    expect(res.headers['x-ratelimit-limit']).toBeUndefined();
    expect(res.headers['x-ratelimit-remaining']).toBeUndefined();
  });

  it('global timeWindow when not set in routes', async () => {
    const fastify = Fastify();
    await fastify.register(rateLimit, legacy(new VirtualClock(0), { global: false, timeWindow: 6000 }));
    fastify.get('/six', { config: { rateLimit: { max: 6 } } }, async () => 'hello!');
    fastify.get('/four', { config: { rateLimit: { max: 4, timeWindow: 4000 } } }, async () => 'hello!');
    let res = await fastify.inject('/six');
    expect(res.statusCode).toBe(200);
    expect(res.headers['x-ratelimit-reset']).toBe('6');
    res = await fastify.inject('/four');
    expect(res.statusCode).toBe(200);
    expect(res.headers['x-ratelimit-reset']).toBe('4');
  });

  it('avoid double onRequest', async () => {
    const fastify = Fastify();
    let keyCallCount = 0;
    fastify.register(
      async (childServer) => {
        await childServer.register(rateLimit, {
          max: 1,
          timeWindow: 1000,
          key: (req) => {
            keyCallCount++;
            return req.ip;
          },
        });
        childServer.get('/', {}, async () => 'hello!');
      },
      { prefix: '/test' },
    );
    const res = await fastify.inject({ url: '/test', method: 'GET' });
    expect(res.statusCode).toBe(200);
    expect(keyCallCount).toBe(1);
  });

  it('Allow multiple different rate limiter registrations (allowList functions are skip)', async () => {
    const fastify = Fastify();
    const path = (req: { url: string }) => new URL(req.url, 'http://localhost').pathname;
    await fastify.register(rateLimit, {
      max: 1,
      timeWindow: 1000,
      headers: 'legacy',
      responseType: 'json',
      skip: (req) => path(req) !== '/test',
    });
    await fastify.register(rateLimit, {
      max: 1,
      timeWindow: 1000,
      headers: 'legacy',
      responseType: 'json',
      skip: (req) => path(req) === '/test',
    });
    fastify.get('/', async () => 'hello!');
    fastify.get('/test', async () => 'hello from another route!');
    for (const url of ['/', '/test']) {
      let res = await fastify.inject(url);
      expect(res.statusCode).toBe(200);
      expect(res.headers['x-ratelimit-limit']).toBe('1');
      expect(res.headers['x-ratelimit-remaining']).toBe('0');
      res = await fastify.inject(url);
      expect(res.statusCode).toBe(429);
      expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(res.headers['x-ratelimit-limit']).toBe('1');
      expect(res.headers['x-ratelimit-remaining']).toBe('0');
      expect(res.headers['retry-after']).toBe('1');
    }
  });

  it('on rateLimitHook should not be set twice on HEAD', async () => {
    const fastify = Fastify();
    await fastify.register(rateLimit, { global: false });
    const seen: unknown[][] = [];
    fastify.addHook('onRoute', (routeOptions) => {
      seen.push([routeOptions.preHandler, (routeOptions.onRequest as unknown[]).length]);
    });
    const config = { rateLimit: { max: 1, timeWindow: 10000, hook: 'onRequest' as const } };
    fastify.get('/', { exposeHeadRoute: true, config }, async () => 'fastify is awesome !');
    fastify.head('/explicit-head', { config }, async () => 'fastify is awesome !');
    fastify.head('/explicit-head-2', { exposeHeadRoute: true, config }, async () => 'fastify is awesome !');
    expect(seen.length).toBeGreaterThan(0);
    for (const entry of seen) expect(entry).toEqual([undefined, 1]);
  });

  it('per route rate limit (difference: HEAD shares the GET route count)', async () => {
    const fastify = Fastify({ exposeHeadRoutes: true });
    await fastify.register(rateLimit, { global: false, headers: 'legacy' });
    fastify.get('/', { config: { rateLimit: { max: 10, timeWindow: 1000 } } }, async () => 'hello!');
    const res = await fastify.inject({ url: '/', method: 'GET' });
    const resHead = await fastify.inject({ url: '/', method: 'HEAD' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['x-ratelimit-limit']).toBe('10');
    expect(res.headers['x-ratelimit-remaining']).toBe('9');
    expect(resHead.statusCode).toBe(200);
    expect(resHead.headers['x-ratelimit-limit']).toBe('10');
    expect(resHead.headers['x-ratelimit-remaining']).toBe('8');
  });

  it('should consider routes allow list', async () => {
    const fastify = Fastify();
    await fastify.register(rateLimit, { global: false });
    fastify.get('/', { config: { rateLimit: { allowList: ['127.0.0.1'], max: 2, timeWindow: 10000 } } }, (_req, reply) => {
      reply.send('hello!');
    });
    for (let i = 0; i < 3; i++) expect((await fastify.inject('/')).statusCode).toBe(200);
  });

  it('on undefined hook should use onRequest-hook', async () => {
    const fastify = Fastify();
    await fastify.register(rateLimit, { global: false });
    const seen: unknown[][] = [];
    fastify.addHook('onRoute', (routeOptions) => {
      seen.push([routeOptions.preHandler, (routeOptions.onRequest as unknown[]).length]);
    });
    fastify.get('/', { exposeHeadRoute: false, config: { rateLimit: { max: 1, timeWindow: 10000 } } }, async () => 'fastify is awesome !');
    expect(seen).toEqual([[undefined, 1]]);
  });
});
