import { Controller, Get, type INestApplication } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import type { Store } from '@tollgate/core';
import request from 'supertest';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RateLimit, RateLimitGuard, RateLimitModule } from '../src/index.js';
import { PLATFORMS, startApp } from './helpers/apps.js';

@Controller('failing')
class FailingStoreController {
  @Get('closed')
  @RateLimit({ perMinute: 1 })
  closed() {
    return 'done';
  }

  @Get('closed-429')
  @RateLimit({ perMinute: 1, storeErrorStatusCode: 429 })
  closed429() {
    return 'done';
  }

  @Get('open')
  @RateLimit({ perMinute: 1, onStoreError: 'open' })
  open() {
    return 'done';
  }
}

/** A store that is down: every call fails. */
const failing: Store = { execute: () => Promise.reject(new Error('store down')) };

describe.each(PLATFORMS)('a failing store on %s', (platform) => {
  let app: INestApplication;

  beforeEach(async () => {
    app = await startApp(platform, {
      // The module's failure mode is every rule's unless a rule overrides it.
      imports: [RateLimitModule.forRoot({ store: failing, onStoreError: 'closed', breaker: { coolDownMs: 2000 } })],
      controllers: [FailingStoreController],
      providers: [{ provide: APP_GUARD, useClass: RateLimitGuard }],
    });
  });
  afterEach(() => app.close());

  it("onStoreError: 'closed' answers 503 with Retry-After until the store is probed again, and no-store", async () => {
    const res = await request(app.getHttpServer()).get('/failing/closed');
    expect(res.status).toBe(503);
    expect(res.headers['retry-after']).toBe('2');
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
  });

  it('storeErrorStatusCode chooses the status of those rejections', async () => {
    const res = await request(app.getHttpServer()).get('/failing/closed-429');
    expect(res.status).toBe(429);
    expect(res.headers['retry-after']).toBe('2');
  });

  it("a rule's own onStoreError: 'open' lets the request through, reporting the limit full", async () => {
    for (let i = 0; i < 3; i++) {
      const res = await request(app.getHttpServer()).get('/failing/open');
      expect(res.status).toBe(200);
      expect(res.headers.ratelimit).toBe('"default";r=1;t=0');
    }
  });
});
