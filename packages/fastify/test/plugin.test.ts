import { VirtualClock } from '@tollgate/testing';
import Fastify5, { type FastifyInstance } from 'fastify';
import Fastify4 from 'fastify4';
import { describe, expect, it } from 'vitest';
import { rateLimit, rateLimitHook } from '../src/index.js';

// Fastify-only: registration, encapsulation, route config and hooks. The shared cases are in contract.test.ts.
const FRAMEWORKS = [
  ['Fastify 4', Fastify4 as unknown as typeof Fastify5],
  ['Fastify 5', Fastify5],
] as const;

const statuses = async (app: FastifyInstance, url: string, times: number) => {
  const found: number[] = [];
  for (let i = 0; i < times; i++) found.push((await app.inject({ url })).statusCode);
  return found;
};

describe.each(FRAMEWORKS)('%s', (_name, Fastify) => {
  it('limits every route registered after it with one count, but a route whose config.rateLimit is false', async () => {
    const app = Fastify();
    await app.register(rateLimit, { perMinute: 2, clock: new VirtualClock().now });
    app.get('/a', () => 'a');
    app.get('/b', () => 'b');
    app.get('/health', { config: { rateLimit: false } }, () => 'up');
    expect(await statuses(app, '/a', 1)).toEqual([200]);
    expect(await statuses(app, '/b', 2)).toEqual([200, 429]);
    expect(await statuses(app, '/health', 3)).toEqual([200, 200, 200]);
    expect((await app.inject({ url: '/health' })).headers.ratelimit).toBeUndefined();
  });

  it('with global: false limits only the routes that opt in, each by its own rule over the plugin options', async () => {
    const clock = new VirtualClock();
    const app = Fastify();
    await app.register(rateLimit, { global: false, clock: clock.now, responseType: 'json' });
    app.get('/open', () => 'open');
    app.get('/login', { config: { rateLimit: { perMinute: 1 } } }, () => 'in');
    app.get('/search', { config: { rateLimit: { perMinute: 2 } } }, () => 'found');
    expect(await statuses(app, '/open', 3)).toEqual([200, 200, 200]);
    expect(await statuses(app, '/login', 2)).toEqual([200, 429]);
    expect(await statuses(app, '/search', 3)).toEqual([200, 200, 429]);
    // responseType came from the plugin's options.
    expect((await app.inject({ url: '/login' })).json()).toMatchObject({ error: expect.any(String) });
    clock.advance(60_000);
    expect(await statuses(app, '/login', 1)).toEqual([200]);
  });

  it("adds a route's own rule to the plugin's: both count, their fields are merged", async () => {
    const clock = new VirtualClock();
    const app = Fastify();
    await app.register(rateLimit, { perMinute: 100, clock: clock.now });
    app.get('/login', { config: { rateLimit: { name: 'login', perMinute: 1 } } }, () => 'in');
    const first = await app.inject({ url: '/login' });
    expect(first.headers['ratelimit-policy']).toBe('"default";q=100;w=60, "login";q=1;w=60');
    expect((await app.inject({ url: '/login' })).statusCode).toBe(429);
  });

  it('respects encapsulation: a plugin registered in a child context limits that context only', async () => {
    const app = Fastify();
    await app.register(async (child) => {
      await child.register(rateLimit, { perMinute: 1, clock: new VirtualClock().now });
      child.get('/inside', () => 'limited');
    });
    app.get('/outside', () => 'free');
    await app.ready();
    expect(await statuses(app, '/inside', 2)).toEqual([200, 429]);
    expect(await statuses(app, '/outside', 3)).toEqual([200, 200, 200]);
  });

  it('runs in preHandler when asked, so key reads what an earlier hook put on the request', async () => {
    const app = Fastify();
    app.decorateRequest('user', '');
    app.addHook('preHandler', async (request) => {
      (request as unknown as { user: string }).user = String(request.headers['x-user'] ?? '');
    });
    await app.register(rateLimit, {
      perMinute: 1,
      hook: 'preHandler',
      clock: new VirtualClock().now,
      key: (request) => (request as unknown as { user: string }).user || undefined,
    });
    app.get('/', () => 'ok');
    const as = (user: string) => app.inject({ url: '/', headers: { 'x-user': user } }).then((res) => res.statusCode);
    expect([await as('ann'), await as('ann'), await as('bob')]).toEqual([200, 429, 200]);
  });

  it("sends what a handler throws through the app's setErrorHandler", async () => {
    const app = Fastify();
    app.setErrorHandler((error: Error & { statusCode?: number }, _request, reply) => {
      reply.code(error.statusCode ?? 500).send({ shaped: error.message });
    });
    await app.register(rateLimit, {
      perMinute: 1,
      clock: new VirtualClock().now,
      handler: (_request, _reply, rejection) => {
        throw Object.assign(new Error(rejection.body), { statusCode: rejection.status });
      },
    });
    app.get('/', () => 'ok');
    await app.inject({ url: '/' });
    const denied = await app.inject({ url: '/' });
    expect(denied.statusCode).toBe(429);
    expect(denied.json()).toEqual({ shaped: 'Too many requests: retry in 60 seconds.' });
    expect(denied.headers['retry-after']).toBe('60');
  });

  it('counts the HEAD route Fastify adds beside a GET route with the GET route; another route given the same options counts apart', async () => {
    const app = Fastify({ exposeHeadRoutes: true });
    await app.register(rateLimit, { global: false, clock: new VirtualClock().now });
    const strict = { perMinute: 2 };
    app.get('/a', { config: { rateLimit: strict } }, () => 'a');
    app.get('/b', { config: { rateLimit: strict } }, () => 'b');
    const status = (method: 'GET' | 'HEAD', url: string) => app.inject({ method, url }).then((res) => res.statusCode);
    expect([await status('GET', '/a'), await status('HEAD', '/a'), await status('GET', '/a')]).toEqual([200, 200, 429]);
    expect([await status('GET', '/b'), await status('GET', '/b')]).toEqual([200, 200]);
  });

  it('takes a rateLimitHook as a route config, whose limiter stays at hand', async () => {
    const app = Fastify();
    await app.register(rateLimit, { global: false });
    const login = rateLimitHook({ perMinute: 1, clock: new VirtualClock().now });
    app.post('/login', { config: { rateLimit: login } }, () => 'in');
    expect((await app.inject({ method: 'POST', url: '/login' })).statusCode).toBe(200);
    expect((await app.inject({ method: 'POST', url: '/login' })).statusCode).toBe(429);
    await login.resetKey('127.0.0.1');
    expect((await app.inject({ method: 'POST', url: '/login' })).statusCode).toBe(200);
  });

  it('may be registered twice in one context: both rules apply', async () => {
    const clock = new VirtualClock();
    const app = Fastify();
    await app.register(rateLimit, { name: 'burst', qps: 1, burst: 3, clock: clock.now });
    await app.register(rateLimit, { name: 'daily', perDay: 2, clock: clock.now });
    app.get('/', () => 'ok');
    expect(await statuses(app, '/', 3)).toEqual([200, 200, 429]);
  });

  it('refuses bad options when the plugin is registered, naming the field', async () => {
    await expect(Fastify().register(rateLimit, { perMinute: -1 })).rejects.toMatchObject({ code: 'ERR_TOLLGATE_INVALID_SPEC' });
    await expect(Fastify().register(rateLimit, {})).rejects.toThrow(/give no rule: give one .*, or global: false/);
    await expect(Fastify().register(rateLimit, { perMinute: 1, hook: 'onSend' as never })).rejects.toMatchObject({
      code: 'ERR_TOLLGATE_INVALID_OPTION',
      field: 'hook',
    });
    await expect(Fastify().register(rateLimit, { global: false, kye: () => 'k' } as never)).rejects.toThrow(
      expect.objectContaining({ code: 'ERR_TOLLGATE_INVALID_OPTION', field: 'kye', message: expect.stringContaining('did you mean key?') }),
    );
    await expect(Fastify().register(rateLimit, { global: false, keyGenerator: () => 'k' } as never)).rejects.toThrow(
      expect.objectContaining({ field: 'keyGenerator', message: expect.stringContaining('use key') }),
    );
    const app = Fastify();
    await app.register(rateLimit, { global: false });
    expect(() => app.get('/', { config: { rateLimit: true as never } }, () => 'ok')).toThrow(
      expect.objectContaining({ field: 'config.rateLimit' }),
    );
  });
});
