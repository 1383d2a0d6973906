/** The HTTP side: the check (headers to descriptors, 2xx or the denied status with the fields), health, readiness, metrics. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Running, startServer } from './helpers/server.js';

describe('the HTTP check and endpoints', () => {
  let running: Running;
  let base: string;

  beforeAll(async () => {
    running = await startServer('memory', {
      http: { host: '127.0.0.1', port: 0 },
      config: {
        domain: 'edge',
        descriptors: [
          { key: 'remote_address', rate_limit: { unit: 'minute', requests_per_unit: 2 } },
          { key: 'method', descriptors: [{ key: 'path', value: '/search', rate_limit: { unit: 'minute', requests_per_unit: 1 } }] },
          { key: 'api_key', descriptors: [{ key: 'plan', value: 'free', rate_limit: { unit: 'hour', requests_per_unit: 1 } }] },
        ],
      },
      check: {
        domain: 'edge',
        headers: { path: 'x-original-uri' },
        descriptors: [
          [{ key: 'remote_address', from: 'address' }],
          [
            { key: 'method', from: 'method' },
            { key: 'path', from: 'path' },
          ],
          [
            { key: 'api_key', from: { header: 'x-api-key' } },
            { key: 'plan', from: { value: 'free' } },
          ],
        ],
      },
    });
    base = `http://127.0.0.1:${running.server.httpPort}`;
  });
  afterAll(() => running?.close());

  const check = (headers: Record<string, string>) => fetch(`${base}/check`, { headers });

  it('counts the address the proxy in front saw (the last of X-Forwarded-For), IPv6 grouped by /64', async () => {
    expect((await check({ 'x-forwarded-for': '203.0.113.9, 10.0.0.1' })).status).toBe(200);
    expect((await check({ 'x-forwarded-for': '198.51.100.1, 10.0.0.1' })).status).toBe(200);
    const third = await check({ 'x-forwarded-for': '10.0.0.1' });
    expect(third.status).toBe(429);
    expect(third.headers.get('retry-after')).toBe('60');
    expect(third.headers.get('cache-control')).toBe('no-store');
    expect(third.headers.get('ratelimit')).toBe('"remote_address";r=0;t=60');
    expect(await third.text()).toBe('Too Many Requests\n');
    expect((await check({ 'x-forwarded-for': '2001:db8:1:2::1' })).status).toBe(200);
    expect((await check({ 'x-forwarded-for': '2001:db8:1:2:ffff::9' })).status).toBe(200);
    expect((await check({ 'x-forwarded-for': '2001:db8:1:2::7' })).status).toBe(429);
  });

  it('reads the method and the path without its query; every descriptor of the request counts', async () => {
    const search = (query: string) => check({ 'x-forwarded-method': 'get', 'x-original-uri': `/search?q=${query}` });
    const first = await search('a');
    expect(first.status).toBe(200);
    expect(first.headers.get('ratelimit-policy')).toBe('"method.path__search";q=1;w=60');
    expect((await search('b')).status).toBe(429);
    expect((await check({ 'x-forwarded-method': 'GET', 'x-original-uri': '/other' })).status).toBe(200);
  });

  it('a descriptor whose header is absent is left out; a request with none left is let through uncounted', async () => {
    const withKey = await check({ 'x-api-key': 'k1' });
    expect(withKey.headers.get('ratelimit')).toBe('"api_key.plan_free";r=0;t=3600');
    expect((await check({ 'x-api-key': 'k1' })).status).toBe(429);
    const none = await check({});
    expect(none.status).toBe(200);
    expect(none.headers.get('ratelimit')).toBeNull();
  });

  it('health, readiness, metrics; other paths and methods are refused', async () => {
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    expect((await fetch(`${base}/readyz`)).status).toBe(200);
    const metrics = await (await fetch(`${base}/metrics`)).text();
    expect(metrics).toMatch(/tollgate_server_calls_total\{transport="http",code="OVER_LIMIT"\} \d+/);
    expect(metrics).toMatch(/tollgate_decisions_total\{rule="edge.remote_address",outcome="denied",source="store",shadow="false"\} \d+/);
    expect(metrics).toContain('tollgate_server_config_domains 1');
    expect((await fetch(`${base}/nothing`)).status).toBe(404);
    expect((await fetch(`${base}/healthz`, { method: 'POST' })).status).toBe(405);
  });
});
