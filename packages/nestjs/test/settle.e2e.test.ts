import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Controller, Get, type INestApplication, NotFoundException } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import type { HttpRequestChecker } from '@tollgate/core';
import request from 'supertest';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { type HttpVerdict, RateLimit, RateLimitGuard, RateLimitModule, RateLimitRegistry } from '../src/index.js';
import { PLATFORMS, startApp } from './helpers/apps.js';

const handled: string[] = [];

@Controller('work')
@RateLimit({ perMinute: 100 })
class WorkController {
  @Get('ok')
  ok() {
    handled.push('ok');
    return 'ok';
  }

  @Get('missing')
  missing() {
    handled.push('missing');
    throw new NotFoundException();
  }
}

/**
 * Wraps the rule's limiter so each passed verdict records its `settle` calls and carries
 * `delayMs`: what the guard calls, and how often, is checked here; the real shaping, leases
 * and refunds behind `settle` are end to end in contract.test.ts.
 */
function instrument(limiter: HttpRequestChecker, delayMs: number): { settled: (number | undefined)[]; passedAt: number[] } {
  const settled: (number | undefined)[] = [];
  const passedAt: number[] = [];
  const check = limiter.check.bind(limiter);
  Object.assign(limiter, {
    async check(info: Parameters<HttpRequestChecker['check']>[0]): Promise<HttpVerdict> {
      const verdict = await check(info);
      if (verdict.action !== 'pass') return verdict;
      passedAt.push(performance.now());
      return {
        ...verdict,
        delayMs,
        settle(statusCode: number | undefined) {
          settled.push(statusCode);
          verdict.settle(statusCode);
        },
      };
    },
  });
  return { settled, passedAt };
}

describe.each(PLATFORMS)('settling and shaping on %s', (platform) => {
  let app: INestApplication;
  let limiter: HttpRequestChecker;

  beforeEach(async () => {
    handled.length = 0;
    app = await startApp(platform, {
      imports: [RateLimitModule.forRoot()],
      controllers: [WorkController],
      providers: [{ provide: APP_GUARD, useClass: RateLimitGuard }],
    });
    limiter = app.get(RateLimitRegistry).limitersFor(WorkController, WorkController.prototype.ok)[0]!;
  });
  afterEach(() => app.close());

  it('settles once with the status the response finished with', async () => {
    const { settled } = instrument(limiter, 0);
    expect((await request(app.getHttpServer()).get('/work/ok')).status).toBe(200);
    expect((await request(app.getHttpServer()).get('/work/missing')).status).toBe(404);
    await vi.waitFor(() => expect(settled).toEqual([200, 404]));
  });

  it('settles with undefined and never runs the handler when the client leaves while held', async () => {
    const { settled, passedAt } = instrument(limiter, 400);
    await app.listen(0, '127.0.0.1');
    const { port } = app.getHttpServer().address() as AddressInfo;
    const client = httpRequest({ host: '127.0.0.1', port, path: '/work/ok' });
    client.on('error', () => undefined);
    client.end();
    await vi.waitFor(() => expect(passedAt).toHaveLength(1));
    client.destroy();
    await vi.waitFor(() => expect(settled).toEqual([undefined]));
    // Past the moment the hold would have ended: still no handler run, still one settle.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(handled).toEqual([]);
    expect(settled).toEqual([undefined]);
  });
});
