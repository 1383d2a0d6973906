import Koa from 'koa';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { adaptiveConcurrency } from '../src/index.js';

describe('adaptiveConcurrency on Koa', () => {
  function appWith(options: Parameters<typeof adaptiveConcurrency>[0]) {
    const middleware = adaptiveConcurrency(options);
    let release: () => void = () => {};
    let arrived: () => void = () => {};
    const reached = new Promise<void>((resolve) => {
      arrived = resolve;
    });
    const app = new Koa();
    app.use(middleware);
    app.use(async (ctx) => {
      if (ctx.path === '/held') {
        arrived();
        await new Promise<void>((resolve) => {
          release = resolve;
        });
        ctx.body = 'done';
      } else if (ctx.path === '/fail') {
        ctx.status = 500;
        ctx.body = 'failed';
      } else ctx.body = 'ok';
    });
    return { server: app.callback(), reached, release: () => release(), limiter: middleware.limiter };
  }

  it('answers 503 with Retry-After while the limit is full, and gives the slot back once the response is over', async () => {
    const { server, reached, release, limiter } = appWith({ limit: 1 });
    const first = request(server)
      .get('/held')
      .then((response) => response);
    await reached;
    const refused = await request(server).get('/ok').expect(503);
    expect(refused.headers['retry-after']).toBe('1');
    expect(refused.text).toBe('Service overloaded: retry in 1 second.');
    release();
    expect((await first).text).toBe('done');
    await request(server).get('/ok').expect(200, 'ok');
    expect(limiter.snapshot().inflight).toBe(0);
  });

  it('backs the limit off on a 5xx, and picks the partition from the context', async () => {
    const { server, limiter } = appWith({
      limit: { algorithm: 'aimd', initialLimit: 10, minLimit: 1 },
      partitions: { critical: 1 },
      partition: (ctx) => (ctx.get('x-priority') === 'critical' ? 'critical' : undefined),
    });
    const partitions: (string | undefined)[] = [];
    limiter.on('sample', (event) => partitions.push(event.partition));
    await request(server).get('/fail').set('x-priority', 'critical').expect(500);
    await request(server).get('/ok').expect(200);
    expect(limiter.snapshot().limit).toBe(9);
    expect(partitions).toEqual(['critical', 'unknown']);
  });
});
