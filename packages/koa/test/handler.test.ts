import { VirtualClock } from '@tollgate/testing';
import Koa3, { type Middleware } from 'koa';
import Koa2 from 'koa2';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { rateLimit } from '../src/index.js';

// Koa-only: a handler may pass the request on with next(). The shared cases are in contract.test.ts.
const FRAMEWORKS = [
  ['Koa 2', Koa2],
  ['Koa 3', Koa3],
] as const;

const ok: Middleware = (ctx) => {
  ctx.body = 'ok';
};

describe.each(FRAMEWORKS)('%s', (_name, Koa) => {
  const serve = (...middleware: Middleware[]) => {
    const app = new Koa();
    for (const m of middleware) app.use(m);
    return app.callback();
  };

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
});
