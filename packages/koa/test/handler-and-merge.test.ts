import { VirtualClock } from '@tollgate/testing';
import Koa3, { type Middleware } from 'koa';
import Koa2 from 'koa2';
import { parseList } from 'structured-headers';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { rateLimit } from '../src/index.js';

const FRAMEWORKS = [
  ['Koa 2', Koa2],
  ['Koa 3', Koa3],
] as const;

const ok: Middleware = (ctx) => {
  ctx.body = 'ok';
};

const namesIn = (value: string | undefined) => parseList(value ?? '').map(([name, params]) => [name, Object.fromEntries(params)]);

describe.each(FRAMEWORKS)('%s', (_name, Koa) => {
  const serve = (...middleware: Middleware[]) => {
    const app = new Koa();
    for (const m of middleware) app.use(m);
    return app.callback();
  };

  it('answers a rejection through an async handler, with the headers set and the decision in ctx.state', async () => {
    const app = serve(
      rateLimit({
        windowMs: 60_000,
        max: 1,
        clock: new VirtualClock().now,
        handler: async (ctx, _next, rejection) => {
          await Promise.resolve();
          ctx.status = rejection.status;
          ctx.body = { tooMany: true, retryAfterMs: ctx.state.rateLimit?.retryAfterMs };
        },
      }),
      ok,
    );
    await request(app).get('/').expect(200);
    const denied = await request(app).get('/').expect(429);
    expect(denied.body).toEqual({ tooMany: true, retryAfterMs: 60_000 });
    expect(denied.headers['retry-after']).toBe('60');
    expect(namesIn(denied.headers.ratelimit)).toEqual([['default', { r: 0, t: 60 }]]);
  });

  it('lets the handler pass the request on after all', async () => {
    const app = serve(
      rateLimit({
        perMinute: 1,
        clock: new VirtualClock().now,
        handler: (ctx, next) => (ctx.get('x-pass') === 'yes' ? next() : undefined),
      }),
      ok,
    );
    await request(app).get('/').expect(200);
    expect((await request(app).get('/').set('x-pass', 'yes').expect(200)).text).toBe('ok');
  });

  it('merges the RateLimit fields of two limiters on one request, renaming a clashing name', async () => {
    const clock = new VirtualClock();
    const app = serve(rateLimit({ perMinute: 100, clock: clock.now }), rateLimit({ perSecond: 1, clock: clock.now }), ok);
    const passed = await request(app).get('/').expect(200);
    expect(namesIn(passed.headers['ratelimit-policy'])).toEqual([
      ['default', { q: 100, w: 60 }],
      ['default-2', { q: 1, w: 1 }],
    ]);
    expect(namesIn(passed.headers.ratelimit).map(([name, params]) => [name, (params as { r: number }).r])).toEqual([
      ['default', 99],
      ['default-2', 0],
    ]);
  });
});
