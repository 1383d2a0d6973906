import { VirtualClock } from '@tollgate/testing';
import Koa3, { type Middleware } from 'koa';
import Koa2 from 'koa2';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { rateLimit } from '../src/index.js';

describe.each([
  ['Koa 2', Koa2],
  ['Koa 3', Koa3],
] as const)('ctx.state on %s', (_name, Koa) => {
  it("holds the decision with express-rate-limit's fields, under requestPropertyName when given", async () => {
    const clock = new VirtualClock(Date.UTC(2026, 0, 1));
    const app = new Koa();
    app.use(rateLimit({ windowMs: 60_000, limit: 5, clock: clock.now, key: (ctx) => ctx.get('x-user') }));
    app.use(rateLimit({ windowMs: 60_000, limit: 3, clock: clock.now, requestPropertyName: 'perMinute' }));
    const show: Middleware = (ctx) => {
      const { limit, used, remaining, resetTime, key } = ctx.state.rateLimit!;
      ctx.body = { limit, used, remaining, resetTime, key, other: ctx.state.perMinute.limit };
    };
    app.use(show);
    const res = await request(app.callback()).get('/').set('x-user', 'u1').expect(200);
    expect(res.body).toEqual({
      limit: 5,
      used: 1,
      remaining: 4,
      resetTime: new Date(Date.UTC(2026, 0, 1) + 60_000).toISOString(),
      key: 'u1',
      other: 3,
    });
  });

  it("has express-rate-limit's resetKey: the client named by its address starts afresh", async () => {
    const app = new Koa();
    const limit = rateLimit({ windowMs: 60_000, limit: 1 });
    app.use(limit);
    app.use((ctx) => {
      ctx.body = 'ok';
    });
    const server = app.callback();
    await request(server).get('/').expect(200);
    await request(server).get('/').expect(429);
    await limit.resetKey('127.0.0.1');
    await request(server).get('/').expect(200);
  });
});
