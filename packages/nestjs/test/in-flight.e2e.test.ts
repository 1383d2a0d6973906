import { get as httpGet } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Controller, Get, type INestApplication, Query, UnauthorizedException } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { VirtualClock } from '@tollgate/testing';
import request from 'supertest';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { type HttpLimiter, RateLimit, RateLimitGuard, RateLimitModule, RateLimitRegistry } from '../src/index.js';
import { PLATFORMS, startApp } from './helpers/apps.js';
import { STORE_KINDS, Stores, uniquePrefix } from './helpers/stores.js';

// Concurrency leases, refunds and shaping end to end, through the real core limiter on both stores.

/** Every request of these tests is one client: `key:client`. */
const key = () => 'client';
const IDENTITY = 'key:client';
const fixedWindow = { algorithm: 'fixed-window', limit: 2, window: '1m', key } as const;

/** Holds `slow` requests until opened; counts the ones that reached the handler. */
const slowGate = {
  entered: 0,
  open: () => {},
  opened: Promise.resolve(),
  reset() {
    this.entered = 0;
    this.opened = new Promise<void>((resolve) => {
      this.open = resolve;
    });
  },
};
let shapedOrder = 0;
const shapedHandled: string[] = [];

function answer(fail: string | undefined): string {
  if (fail !== undefined) throw new UnauthorizedException();
  return 'done';
}

@Controller('in-flight')
class InFlightController {
  @Get('slow')
  @RateLimit({ algorithm: 'concurrency', limit: 1, leaseTtl: '1m', key })
  async slow() {
    slowGate.entered++;
    await slowGate.opened;
    return 'done';
  }

  @Get('skip-failed')
  @RateLimit({ ...fixedWindow, skipFailedRequests: true })
  skipFailed(@Query('fail') fail?: string) {
    return answer(fail);
  }

  @Get('skip-successful')
  @RateLimit({ ...fixedWindow, skipSuccessfulRequests: true })
  skipSuccessful(@Query('fail') fail?: string) {
    return answer(fail);
  }

  // 50 per second: one departure every 20 ms.
  @Get('shaped')
  @RateLimit({ algorithm: 'leaky-bucket', mode: 'shaping', rate: 50, maxDelay: '60ms', key })
  shaped() {
    return { order: shapedOrder++ };
  }

  @Get('shaped-slowly')
  @RateLimit({ algorithm: 'leaky-bucket', mode: 'shaping', rate: 2, maxDelay: '1s', key, skipFailedRequests: true })
  shapedSlowly() {
    shapedHandled.push('shaped-slowly');
    return 'done';
  }
}

const stores = new Stores();
beforeAll(() => stores.start());
afterAll(() => stores.stop());

const MATRIX = PLATFORMS.flatMap((platform) => STORE_KINDS.map((store) => [platform, store] as const));

describe.each(MATRIX)('in-flight requests on %s with the %s store', (platform, storeKind) => {
  let app: INestApplication;
  let delayed = 0;

  beforeEach(async () => {
    slowGate.reset();
    shapedOrder = 0;
    shapedHandled.length = 0;
    delayed = 0;
    const clock = new VirtualClock();
    app = await startApp(platform, {
      imports: [
        RateLimitModule.forRoot({
          // Client time: Redis decides on the virtual clock, which stands still, so slots and windows are exact.
          store: stores.create(storeKind, clock),
          clock: clock.now,
          prefix: uniquePrefix(),
          events: { delayed: () => delayed++ },
        }),
      ],
      controllers: [InFlightController],
      providers: [{ provide: APP_GUARD, useClass: RateLimitGuard }],
    });
    await app.listen(0, '127.0.0.1');
  });
  afterEach(async () => {
    slowGate.open();
    await app.close();
  });

  const limiterOf = (handler: keyof InFlightController) =>
    (app.get(RateLimitRegistry).limitersFor(InFlightController, InFlightController.prototype[handler])[0] as HttpLimiter).limiter;
  const get = (path: string) => request(app.getHttpServer()).get(path);
  /** Resolves once a request of the rule would be admitted again (its lease was released). */
  const slotFree = (handler: keyof InFlightController) =>
    vi.waitFor(async () => expect((await limiterOf(handler).peek(IDENTITY)).allowed).toBe(true));
  /** Resolves once nothing of the 2-unit window is spent (a refund landed): a peek leaves 1 after itself. */
  const nothingSpent = (handler: keyof InFlightController) =>
    vi.waitFor(async () => expect((await limiterOf(handler).peek(IDENTITY)).remaining).toBe(1));

  /** Sends GET `path` from a raw client and destroys its socket once `ready()` holds. */
  async function hangUp(path: string, ready: () => boolean): Promise<void> {
    const { port } = app.getHttpServer().address() as AddressInfo;
    const client = httpGet({ port, host: '127.0.0.1', path });
    client.on('error', () => {});
    await vi.waitFor(() => expect(ready()).toBe(true));
    client.destroy();
  }

  it('concurrency: answers 429 while a request holds the slot, and lets the next one in once it finished', async () => {
    const first = get('/in-flight/slow').then((res) => res);
    await vi.waitFor(() => expect(slowGate.entered).toBe(1));
    const second = await get('/in-flight/slow').expect(429);
    expect(second.headers['retry-after']).toBe('60');
    slowGate.open();
    expect((await first).status).toBe(200);
    await slotFree('slow');
    await get('/in-flight/slow').expect(200);
    expect(slowGate.entered).toBe(2);
  });

  it('concurrency: frees the slot of a request whose client hung up mid-handler', async () => {
    await hangUp('/in-flight/slow', () => slowGate.entered === 1);
    // The handler is still running, but the connection is gone: the slot comes back.
    await slotFree('slow');
    slowGate.open();
    await get('/in-flight/slow').expect(200);
  });

  it('skipFailedRequests: failed responses give their unit back, successful ones count', async () => {
    for (let i = 0; i < 3; i++) {
      await get('/in-flight/skip-failed?fail').expect(401);
      await nothingSpent('skipFailed');
    }
    await get('/in-flight/skip-failed').expect(200);
    await get('/in-flight/skip-failed').expect(200);
    await get('/in-flight/skip-failed').expect(429);
    await get('/in-flight/skip-failed?fail').expect(429);
  });

  it('skipSuccessfulRequests: successful responses give their unit back, failed ones count', async () => {
    for (let i = 0; i < 3; i++) {
      await get('/in-flight/skip-successful').expect(200);
      await nothingSpent('skipSuccessful');
    }
    await get('/in-flight/skip-successful?fail').expect(401);
    await get('/in-flight/skip-successful?fail').expect(401);
    await get('/in-flight/skip-successful?fail').expect(429);
    await get('/in-flight/skip-successful').expect(429);
  });

  it('shaping: holds simultaneous requests and answers them in slot order, with Retry-After on the delayed ones', async () => {
    const sentAt = performance.now();
    const responses = await Promise.all(
      Array.from({ length: 5 }, () => get('/in-flight/shaped').then((res) => ({ res, tookMs: performance.now() - sentAt }))),
    );
    // Slots 0, 20, 40 and 60 ms pass, in that order; the fifth would wait past maxDelay.
    const passed = responses.filter(({ res }) => res.status === 200).sort((a, b) => a.res.body.order - b.res.body.order);
    expect(passed.map(({ res }) => res.body.order)).toEqual([0, 1, 2, 3]);
    expect(passed.map(({ res }) => res.headers['retry-after'])).toEqual([undefined, '1', '1', '1']);
    passed.forEach(({ tookMs }, slot) => {
      expect(tookMs).toBeGreaterThanOrEqual(slot * 20);
    });
    expect(delayed).toBe(3);
    const denied = responses.filter(({ res }) => res.status === 429);
    expect(denied).toHaveLength(1);
    expect(denied[0]!.res.headers['retry-after']).toBe('1');
  });

  it('shaping: never runs the handler of a held request whose client hung up, and refunds its slot when asked', async () => {
    const limiter = limiterOf('shapedSlowly');
    await limiter.consume(IDENTITY); // takes the slot leaving now
    await hangUp('/in-flight/shaped-slowly', () => delayed === 1); // this one was given the slot 500 ms ahead
    // The aborted request's slot is given back: the next one gets the same 500 ms, not 1000.
    await vi.waitFor(async () => expect((await limiter.peek(IDENTITY)).delayMs).toBe(500));
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(shapedHandled).toEqual([]);
  });
});
