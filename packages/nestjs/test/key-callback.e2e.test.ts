import { Controller, Get, type INestApplication } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import request from 'supertest';
import { afterEach, describe, expect, it } from 'vitest';
import { RateLimit, RateLimitGuard, RateLimitModule } from '../src/index.js';
import { PLATFORMS, startApp } from './helpers/apps.js';

const seenByKey: Record<string, unknown>[] = [];

@Controller('ip')
class KeyInfoController {
  @Get('route')
  @RateLimit({
    perHour: 2,
    key: (req, info) => {
      seenByKey.push({ ...info, raw: req === info.raw && typeof req === 'object' });
      return `${info.method} ${info.path}`;
    },
  })
  byRoute() {
    return 'route';
  }
}

describe.each(PLATFORMS)('key callbacks on %s', (platform) => {
  let app: INestApplication;
  const boot = async () => {
    app = await startApp(platform, {
      imports: [RateLimitModule.forRoot()],
      controllers: [KeyInfoController],
      providers: [{ provide: APP_GUARD, useClass: RateLimitGuard }],
    });
  };
  afterEach(() => app.close());

  it('hands key callbacks the request and its method, path without the query string, IP and headers', async () => {
    await boot();
    seenByKey.length = 0;
    const server = app.getHttpServer();
    const seen = [];
    for (const query of ['?page=1', '?page=2', '']) seen.push((await request(server).get(`/ip/route${query}`).set('X-Trace', 't1')).status);
    expect(seen).toEqual([200, 200, 429]);
    expect(seenByKey).toHaveLength(3);
    expect(seenByKey[0]).toMatchObject({
      method: 'GET',
      path: '/ip/route',
      raw: true,
      headers: expect.objectContaining({ 'x-trace': 't1' }),
    });
    expect(seenByKey[0]!.ip).toMatch(/127\.0\.0\.1$/);
    expect(seenByKey[1]).toMatchObject({ path: '/ip/route' });
  });
});
