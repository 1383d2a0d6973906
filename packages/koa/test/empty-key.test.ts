import Koa3 from 'koa';
import Koa2 from 'koa2';
import request from 'supertest';
import { describe, it } from 'vitest';
import { rateLimit } from '../src/index.js';

describe.each([
  ['Koa 2', Koa2],
  ['Koa 3', Koa3],
] as const)('%s: a key read from the x-api-key header', (_name, Koa) => {
  // ctx.get() answers '' for a missing header as for an empty one.
  it('limits requests without a key, or with an empty `x-api-key:` header, by their IP: 200 then 429, never a 500', async () => {
    const app = new Koa();
    app.use(rateLimit({ perMinute: 2, key: (ctx) => ctx.get('x-api-key') }));
    app.use((ctx) => {
      ctx.body = 'results';
    });
    const server = app.callback();
    await request(server).get('/').set('x-api-key', '').expect(200);
    await request(server).get('/').expect(200);
    await request(server).get('/').set('x-api-key', '').expect(429).expect('retry-after', '30');
    await request(server).get('/').set('x-api-key', 'alpha').expect(200);
  });
});
