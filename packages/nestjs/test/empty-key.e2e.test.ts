import { Controller, Get, type INestApplication } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import request from 'supertest';
import { afterEach, describe, it } from 'vitest';
import { RateLimit, RateLimitGuard, RateLimitModule } from '../src/index.js';
import { PLATFORMS, startApp } from './helpers/apps.js';

@Controller('search')
class SearchController {
  // The README's per-API-key rule.
  @Get()
  @RateLimit({ perMinute: 2, key: (req) => req.headers['x-api-key'] })
  search() {
    return 'results';
  }
}

describe.each(PLATFORMS)('Nest on %s: a key read from the x-api-key header', (platform) => {
  let app: INestApplication;
  afterEach(() => app.close());

  it('limits a request with an empty `x-api-key:` header by its IP: 200 then 429, never a 500', async () => {
    app = await startApp(platform, {
      imports: [RateLimitModule.forRoot()],
      controllers: [SearchController],
      providers: [{ provide: APP_GUARD, useClass: RateLimitGuard }],
    });
    const server = app.getHttpServer();
    await request(server).get('/search').set('x-api-key', '').expect(200);
    await request(server).get('/search').expect(200);
    await request(server).get('/search').set('x-api-key', '').expect(429).expect('retry-after', '30');
    await request(server).get('/search').set('x-api-key', 'alpha').expect(200);
  });
});
