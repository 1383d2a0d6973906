import type { AddressInfo } from 'node:net';
import type { INestApplication } from '@nestjs/common';
import { asCurlShows, headersAsShown, markdownSample, type RedisTarget, startRedis } from '@tollgate/testing';
import { Redis } from 'ioredis';
import { type Item, parseList } from 'structured-headers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../src/create-app.js';

const README = new URL('../README.md', import.meta.url);

let redis: RedisTarget;
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(() => redis.close());

/** `RateLimit-Policy` / `RateLimit` as RFC 9651 lists: policy name → parameters. */
function policies(field: string | null): Record<string, Record<string, unknown>> {
  return Object.fromEntries(parseList(field ?? '').map((member) => [(member as Item)[0], Object.fromEntries(member[1])]));
}

describe.each(['memory', 'redis'] as const)('the example app with limits in %s', (storeKind) => {
  let app: INestApplication;
  let base: string;

  beforeAll(async () => {
    app = await createApp({ redisUrl: storeKind === 'redis' ? redis.url : undefined, port: 0 }, { logger: false });
    await app.listen(0, '127.0.0.1');
    base = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`;
  });
  afterAll(() => app.close());

  const call = (path: string, init: RequestInit = {}) => fetch(base + path, init);
  async function statuses(path: string, count: number, init: RequestInit = {}): Promise<number[]> {
    const seen = [];
    for (let i = 0; i < count; i++) seen.push((await call(path, init)).status);
    return seen;
  }

  it('GET /public/hello: 5 per minute per IP, then 429 with the headers the README shows', async () => {
    const first = await call('/public/hello');
    expect(first.status).toBe(200);
    expect(await first.json()).toEqual({ hello: 'world' });
    expect(policies(first.headers.get('ratelimit-policy'))).toEqual({ default: { q: 5, w: 60 } });
    expect(policies(first.headers.get('ratelimit')).default).toMatchObject({ r: 4 });
    const next = await statuses('/public/hello', 4);
    expect(next).toEqual([200, 200, 200, 200]);
    const rejected = await call('/public/hello');
    expect(rejected.status).toBe(429);
    expect(policies(rejected.headers.get('ratelimit')).default).toMatchObject({ r: 0 });
    expect(Number(rejected.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(Number(rejected.headers.get('retry-after'))).toBeLessThanOrEqual(12);
    expect(rejected.headers.get('cache-control')).toBe('no-store');
    // The README's sample: those six, then its `curl -si`.
    const [, seen, , ...curl] = markdownSample(README, 'public-hello');
    expect([first.status, ...next, rejected.status].join(' ')).toBe(seen?.trim());
    const again = await call('/public/hello');
    const { status, statusText, headers } = again;
    expect(asCurlShows(curl, { status, statusText, headers, body: await again.text() })).toEqual(curl);
  });

  it('GET /health is never limited', async () => {
    expect(await statuses('/health', 10)).toEqual(Array(10).fill(200));
  });

  it('GET /api/reports: 401 without a key, 5 per minute on the free tier, 20 for VIPs', async () => {
    const [, noKey, , freeStatuses, , ...vipFields] = markdownSample(README, 'api-reports');
    expect(String((await call('/api/reports')).status)).toBe(noKey);
    const free = { headers: { 'x-api-key': 'demo-free-key' } };
    const freeSeen = await statuses('/api/reports', 6, free);
    expect(freeSeen).toEqual([200, 200, 200, 200, 200, 429]);
    expect(freeSeen.join(' ')).toBe(freeStatuses?.trim());
    const vip = { headers: { 'x-api-key': 'demo-vip-key' } };
    const firstVip = await call('/api/reports', vip);
    expect(headersAsShown(vipFields, firstVip.headers)).toEqual(vipFields);
    const vipStatuses = [firstVip.status, ...(await statuses('/api/reports', 20, vip))];
    expect(vipStatuses.slice(0, 20)).toEqual(Array(20).fill(200));
    expect(vipStatuses[20]).toBe(429);
    const rejected = await call('/api/reports', vip);
    expect(policies(rejected.headers.get('ratelimit-policy'))).toEqual({ vip: { q: 20, w: 60 } });
  });

  it('POST /auth/login: 3 failed attempts per 15 minutes, then a JSON 429', async () => {
    const attempt = (password: string) =>
      call('/auth/login', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username: 'demo', password }),
      });
    // The README's loop: three wrong passwords, then the right one; each line the body and the status.
    const shown = [];
    for (const password of ['a', 'b', 'c']) {
      const wrong = await attempt(password);
      expect(wrong.status).toBe(401);
      shown.push(`${await wrong.text()} ${wrong.status}`);
    }
    const rejected = await attempt('demo-password');
    expect(rejected.status).toBe(429);
    expect(rejected.headers.get('content-type')).toMatch(/^application\/json/);
    const body = await rejected.text();
    expect(JSON.parse(body)).toEqual({ error: 'too many login attempts, try again later' });
    shown.push(`${body} ${rejected.status}`);
    expect(shown).toEqual(markdownSample(README, 'login').slice(2));
    expect(policies(rejected.headers.get('ratelimit-policy'))).toEqual({ login: { q: 3, w: 900 } });
  });

  it('GET /search: bursts of 3 and 30 per hour, both advertised', async () => {
    const [, seen, , ...fields] = markdownSample(README, 'search');
    expect(await statuses('/search?q=tollgate', 3)).toEqual([200, 200, 200]);
    const rejected = await call('/search?q=tollgate');
    expect(rejected.status).toBe(429);
    expect(`200 200 200 ${rejected.status}`).toBe(seen?.trim());
    // The README's `curl -si` after its four requests.
    const again = await call('/search?q=tollgate');
    expect(headersAsShown(fields, again.headers)).toEqual(fields);
    expect(policies(rejected.headers.get('ratelimit-policy'))).toEqual({ burst: { q: 3, w: 3 }, hourly: { q: 30, w: 3600 } });
    expect(policies(rejected.headers.get('ratelimit')).burst).toMatchObject({ r: 0 });
    expect(rejected.headers.get('retry-after')).toBe('1');
  });

  if (storeKind === 'redis') {
    it('keeps its limits in Redis, under its own prefix', async () => {
      const client = new Redis(redis.url);
      try {
        expect((await client.keys('example:*')).length).toBeGreaterThan(0);
      } finally {
        client.disconnect();
      }
    });
  }
});
