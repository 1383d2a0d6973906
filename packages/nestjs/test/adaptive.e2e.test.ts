import { Controller, Get, type INestApplication } from '@nestjs/common';
import request from 'supertest';
import { afterEach, describe, expect, it } from 'vitest';
import { adaptiveConcurrency } from '../src/index.js';
import { PLATFORMS, startApp } from './helpers/apps.js';

let release: () => void = () => {};
let arrived: () => void = () => {};

@Controller()
class SlowController {
  @Get('held')
  async held() {
    arrived();
    await new Promise<void>((resolve) => {
      release = resolve;
    });
    return 'done';
  }

  @Get('fail')
  fail() {
    throw new Error('failed');
  }

  @Get('ok')
  ok() {
    return 'ok';
  }
}

describe.each(PLATFORMS)('adaptiveConcurrency on Nest (%s)', (platform) => {
  let app: INestApplication;

  afterEach(async () => {
    await app?.close();
  });

  it('answers 503 with Retry-After while the limit is full, and gives the slot back once the response is over', async () => {
    const middleware = adaptiveConcurrency({ limit: 1 });
    app = await startApp(platform, { controllers: [SlowController] }, { configure: (nest) => nest.use(middleware) });
    const server = app.getHttpServer();
    const reached = new Promise<void>((resolve) => {
      arrived = resolve;
    });
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
    expect(middleware.limiter.snapshot().inflight).toBe(0);
  });

  it('backs the limit off when a handler fails with a 500', async () => {
    const middleware = adaptiveConcurrency({ limit: { algorithm: 'aimd', initialLimit: 10, minLimit: 1 } });
    app = await startApp(platform, { controllers: [SlowController] }, { configure: (nest) => nest.use(middleware) });
    await request(app.getHttpServer()).get('/fail').expect(500);
    expect(middleware.limiter.snapshot()).toMatchObject({ limit: 9, inflight: 0 });
  });
});
