import type { INestApplication } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { VirtualClock } from '@tollgate/testing';
import request from 'supertest';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { RateLimitGuard, RateLimitModule } from '../src/index.js';
import { PLATFORMS, startApp } from './helpers/apps.js';
import {
  ClassRuleController,
  DefaultRuleController,
  GuardedController,
  MultiLimitController,
  RouteOptionsController,
  SkippedController,
  TieredController,
} from './helpers/controllers.js';
import { parseRateLimitField } from './helpers/fields.js';
import { STORE_KINDS, STORE_SEMANTICS, Stores, uniquePrefix } from './helpers/stores.js';

const stores = new Stores();
beforeAll(() => stores.start());
afterAll(() => stores.stop());

const MATRIX = PLATFORMS.flatMap((platform) => STORE_KINDS.map((store) => [platform, store] as const));

describe.each(MATRIX)('global guard on %s with the %s store', (platform, storeKind) => {
  let app: INestApplication;
  let clock: VirtualClock;

  beforeEach(async () => {
    clock = new VirtualClock();
    app = await startApp(platform, {
      imports: [
        RateLimitModule.forRoot({
          store: stores.create(storeKind, clock),
          clock: clock.now,
          ...STORE_SEMANTICS,
          prefix: uniquePrefix(),
          defaultRule: { perMinute: 3 },
        }),
      ],
      controllers: [
        ClassRuleController,
        SkippedController,
        DefaultRuleController,
        MultiLimitController,
        RouteOptionsController,
        TieredController,
      ],
      providers: [{ provide: APP_GUARD, useClass: RateLimitGuard }],
    });
  });
  afterEach(() => app.close());

  const get = (path: string, headers: Record<string, string> = {}) => request(app.getHttpServer()).get(path).set(headers);
  async function statuses(path: string, count: number, headers: Record<string, string> = {}): Promise<number[]> {
    const seen: number[] = [];
    for (let i = 0; i < count; i++) seen.push((await get(path, headers)).status);
    return seen;
  }

  it('shares a controller rule between its handlers and rejects exactly the request past the limit', async () => {
    expect(await statuses('/limited/a', 3)).toEqual([200, 200, 200]);
    expect(await statuses('/limited/b', 2)).toEqual([200, 200]);
    expect(await statuses('/limited/a', 1)).toEqual([429]);
    expect(await statuses('/limited/b', 1)).toEqual([429]);
  });

  it('advertises the policy and what is left on every passed request', async () => {
    const first = await get('/limited/a');
    expect(first.status).toBe(200);
    expect(first.text).toBe('a');
    expect(parseRateLimitField(first.headers['ratelimit-policy']).get('default')).toEqual({ q: 5, w: 60 });
    expect(parseRateLimitField(first.headers.ratelimit).get('default')).toEqual({ r: 4, t: 12 });
    const second = await get('/limited/a');
    expect(parseRateLimitField(second.headers.ratelimit).get('default')).toEqual({ r: 3, t: 24 });
    expect(first.headers['retry-after']).toBeUndefined();
  });

  it('lets the request through once the clock has moved by Retry-After', async () => {
    await statuses('/limited/a', 5);
    const rejected = await get('/limited/a');
    clock.advance(Number(rejected.headers['retry-after']) * 1000 - 1);
    expect((await get('/limited/a')).status).toBe(429);
    clock.advance(1);
    expect(await statuses('/limited/a', 2)).toEqual([200, 429]);
  });

  it('gives a handler rule its own budget, overriding the controller rule', async () => {
    expect(await statuses('/limited/a', 6)).toEqual([200, 200, 200, 200, 200, 429]);
    expect(await statuses('/limited/own', 3)).toEqual([200, 200, 429]);
    const rejected = await get('/limited/own');
    expect(parseRateLimitField(rejected.headers['ratelimit-policy']).get('default')).toEqual({ q: 2, w: 60 });
  });

  it('exempts @SkipRateLimit() handlers and controllers, where a handler rule still applies', async () => {
    await statuses('/limited/a', 6);
    expect(await statuses('/limited/free', 8)).toEqual(Array(8).fill(200));
    expect((await get('/limited/free')).headers.ratelimit).toBeUndefined();
    expect(await statuses('/skipped', 8)).toEqual(Array(8).fill(200));
    expect(await statuses('/skipped/but-this', 3)).toEqual([200, 200, 429]);
  });

  it('applies the default rule to routes without one, one budget across them', async () => {
    expect(await statuses('/open', 2)).toEqual([200, 200]);
    expect((await request(app.getHttpServer()).post('/open')).status).toBe(201);
    expect((await request(app.getHttpServer()).post('/open')).status).toBe(429);
    expect(await statuses('/open', 1)).toEqual([429]);
  });

  it('checks every limit of a multi-limit rule and reports the one that refused', async () => {
    expect(await statuses('/multi', 4)).toEqual([200, 200, 200, 429]);
    const byBurst = await get('/multi');
    expect(byBurst.headers['retry-after']).toBe('1');
    const policies = parseRateLimitField(byBurst.headers['ratelimit-policy']);
    expect(policies.get('burst')).toEqual({ q: 3, w: 3 });
    expect(policies.get('minute')).toEqual({ q: 4, w: 60 });
    expect(parseRateLimitField(byBurst.headers.ratelimit).get('burst')).toMatchObject({ r: 0 });
    clock.advance(1000);
    expect(await statuses('/multi', 2)).toEqual([200, 429]);
    clock.advance(1000);
    // The per-second limit has room again, the per-minute one (4 taken) has not: 15 s per request, back at 73 s - 60 s.
    const byMinute = await get('/multi');
    expect(byMinute.status).toBe(429);
    expect(byMinute.headers['retry-after']).toBe('13');
    expect(parseRateLimitField(byMinute.headers.ratelimit).get('minute')).toMatchObject({ r: 0 });
  });

  it('keys a route by its own key function', async () => {
    expect(await statuses('/options/by-key', 3, { 'x-api-key': 'alice' })).toEqual([200, 200, 429]);
    expect(await statuses('/options/by-key', 3, { 'x-api-key': 'bob' })).toEqual([200, 200, 429]);
  });

  it('answers with the route own body, content type and status', async () => {
    expect((await get('/options/json')).status).toBe(200);
    const json = await get('/options/json');
    expect(json.status).toBe(429);
    expect(json.headers['content-type']).toMatch(/^application\/json/);
    expect(JSON.parse(json.text)).toEqual({ error: 'slow down' });
    expect((await get('/options/text')).status).toBe(200);
    const text = await get('/options/text');
    expect(text.status).toBe(503);
    expect(text.text).toBe('retry in 3600 s');
    expect(text.headers['retry-after']).toBe('3600');
  });

  it('checks several rules on one route: a tier per API key', async () => {
    expect(await statuses('/tiered', 3, { 'x-api-key': 'free-1' })).toEqual([200, 200, 429]);
    expect(await statuses('/tiered', 5, { 'x-api-key': 'vip-1' })).toEqual([200, 200, 200, 200, 429]);
    const vip = await get('/tiered', { 'x-api-key': 'vip-2' });
    expect(parseRateLimitField(vip.headers['ratelimit-policy']).get('vip')).toEqual({ q: 4, w: 60 });
  });

  it('skips requests the route skip function picks', async () => {
    expect(await statuses('/options/skip-header', 3, { 'x-internal': 'yes' })).toEqual([200, 200, 200]);
    expect(await statuses('/options/skip-header', 2)).toEqual([200, 429]);
  });
});

describe.each(PLATFORMS)('guard per controller on %s', (platform) => {
  let app: INestApplication;

  beforeEach(async () => {
    const clock = new VirtualClock();
    app = await startApp(platform, {
      imports: [RateLimitModule.forRoot({ clock: clock.now, defaultRule: { perMinute: 1 } })],
      controllers: [GuardedController, DefaultRuleController],
    });
  });
  afterEach(() => app.close());

  it('limits only the controllers that use the guard', async () => {
    const server = app.getHttpServer();
    const guarded = [];
    for (let i = 0; i < 3; i++) guarded.push((await request(server).get('/guarded')).status);
    expect(guarded).toEqual([200, 200, 429]);
    expect((await request(server).get('/guarded/default')).status).toBe(200);
    expect((await request(server).get('/guarded/default')).status).toBe(429);
    for (let i = 0; i < 5; i++) expect((await request(server).get('/open')).status).toBe(200);
  });
});
