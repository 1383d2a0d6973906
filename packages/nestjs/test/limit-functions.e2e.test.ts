import type { IncomingHttpHeaders } from 'node:http';
import { Controller, Get, type INestApplication } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RateLimit, RateLimitGuard, RateLimitModule } from '../src/index.js';
import { PLATFORMS, startApp } from './helpers/apps.js';
import { parseRateLimitField } from './helpers/fields.js';

const perMinuteByPlan: Record<string, number> = { free: 2, pro: 4 };
const planOf = (req: { headers: IncomingHttpHeaders }) => req.headers['x-plan']?.toString() ?? 'free';

/** The README's recipe: a count chosen per request (by plan), keyed by API key. */
@Controller('exports')
class ExportsController {
  @Get()
  @RateLimit({ perMinute: (req) => perMinuteByPlan[planOf(req)] ?? 2, key: (req) => req.headers['x-api-key'] })
  list() {
    return [];
  }

  @Get('broken')
  @RateLimit({
    perMinute: () => {
      throw new Error('plan service down');
    },
  })
  broken() {
    return [];
  }
}

describe.each(PLATFORMS)('limits chosen per request on %s', (platform) => {
  let app: INestApplication;
  beforeAll(async () => {
    app = await startApp(platform, {
      imports: [RateLimitModule.forRoot()],
      controllers: [ExportsController],
      providers: [{ provide: APP_GUARD, useClass: RateLimitGuard }],
    });
  });
  afterAll(() => app.close());

  const statuses = async (plan: string, key: string, count: number) => {
    const seen: number[] = [];
    for (let i = 0; i < count; i++)
      seen.push((await request(app.getHttpServer()).get('/exports').set({ 'x-plan': plan, 'x-api-key': key })).status);
    return seen;
  };

  it("limits each request by its plan's count, and advertises that count", async () => {
    expect(await statuses('free', 'a', 3)).toEqual([200, 200, 429]);
    expect(await statuses('pro', 'b', 5)).toEqual([200, 200, 200, 200, 429]);
    const pro = await request(app.getHttpServer()).get('/exports').set({ 'x-plan': 'pro', 'x-api-key': 'c' });
    expect(parseRateLimitField(pro.headers['ratelimit-policy']).get('default')).toMatchObject({ q: 4, w: 60 });
  });

  it('fails the request through the exception filters when the function throws, never passing it unlimited', async () => {
    for (let i = 0; i < 3; i++) expect((await request(app.getHttpServer()).get('/exports/broken')).status).toBe(500);
  });
});
