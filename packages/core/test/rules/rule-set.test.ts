import { VirtualClock } from '@tollgate/testing';
import { describe, expect, it } from 'vitest';
import { createRuleSet, type RuleRequest } from '../../src/index.js';
import { ControlledStore } from '../helpers/controlled-store.js';

const request = (overrides: Partial<RuleRequest> = {}): RuleRequest => ({
  method: 'GET',
  path: '/',
  ip: '203.0.113.7',
  headers: {},
  ...overrides,
});

/** Tiers by API key, as nginx does with `map` + `limit_req`: a VIP key gets 100 r/s, everyone else 10 r/s per IP. */
const NGINX_EXAMPLE = {
  rules: [
    {
      name: 'login',
      match: { method: 'POST', path: '/login' },
      key: 'ip',
      limit: { perMinute: 5 },
    },
    {
      name: 'data',
      match: { method: ['GET', 'post'], path: '/api/v1/data/**' },
      key: 'ip',
      tiers: [
        { name: 'vip', when: { key: 'apiKey', in: ['vip-secret-key'] }, key: 'apiKey', limit: { qps: 100 } },
        { name: 'standard', limit: { qps: 10 } },
      ],
    },
    {
      name: 'account',
      match: { path: '/users/:id/*' },
      key: 'user',
      limits: [
        { qps: 2, burst: 2 },
        { algorithm: 'fixed-window', limit: 3, window: '1h' },
      ],
    },
    { name: 'tenant', match: { path: '/tenant/**' }, key: { header: 'X-Tenant' }, limit: { qps: 1, burst: 1 } },
    { name: 'catch-all', limit: { qps: 1000 } },
  ],
};

async function admitted(set: ReturnType<typeof createRuleSet>, req: RuleRequest, count: number): Promise<number> {
  let passed = 0;
  for (let i = 0; i < count; i++) {
    const match = set.match(req)!;
    if ((await match.limiter.consume(match.key)).allowed) passed++;
  }
  return passed;
}

describe('rule set matching', () => {
  const set = createRuleSet(NGINX_EXAMPLE, { clock: new VirtualClock().now });

  it('matches by method and path pattern, first rule first', () => {
    expect(set.rules).toEqual(['login', 'data', 'account', 'tenant', 'catch-all']);
    expect(set.match(request({ method: 'POST', path: '/login' }))?.rule).toBe('login');
    expect(set.match(request({ method: 'GET', path: '/login' }))?.rule).toBe('catch-all');
    expect(set.match(request({ method: 'POST', path: '/login?next=/home' }))?.rule).toBe('login');
    expect(set.match(request({ method: 'post', path: '/api/v1/data' }))?.rule).toBe('data');
    expect(set.match(request({ path: '/api/v1/data/reports/7/' }))?.rule).toBe('data');
    expect(set.match(request({ method: 'DELETE', path: '/api/v1/data/x' }))?.rule).toBe('catch-all');
    expect(set.match(request({ path: '/api/v1/database' }))?.rule).toBe('catch-all');
  });

  it('keys by ip, api key (as a digest), user and header', () => {
    expect(set.match(request({ method: 'POST', path: '/login' }))?.key).toBe('ip:203.0.113.7');
    const vip = set.match(request({ path: '/api/v1/data/x', headers: { 'x-api-key': 'vip-secret-key' } }))!;
    expect([vip.tier, vip.key.startsWith('apiKey:'), vip.key.includes('vip-secret-key')]).toEqual(['vip', true, false]);
    expect(set.match(request({ path: '/users/42/profile', user: '42' }))?.key).toBe('user:42');
    expect(set.match(request({ path: '/tenant/a', headers: { 'x-tenant': ['acme', 'other'] } }))?.key).toBe('header:x-tenant:acme');
  });

  it('says which selector read which value', () => {
    expect(set.match(request({ method: 'POST', path: '/login' }))).toMatchObject({ selector: 'ip', value: '203.0.113.7' });
    const vip = set.match(request({ path: '/api/v1/data/x', headers: { 'x-api-key': 'vip-secret-key' } }))!;
    expect([vip.selector, `apiKey:${vip.value}`, vip.value.includes('vip-secret-key')]).toEqual(['apiKey', vip.key, false]);
    expect(set.match(request({ path: '/users/42/profile', user: '42' }))).toMatchObject({ selector: 'user', value: '42' });
    const tenant = set.match(request({ path: '/tenant/a', headers: { 'x-tenant': 'acme' } }));
    expect(tenant).toMatchObject({ selector: { header: 'x-tenant' }, value: 'acme' });
  });

  it('passes over a rule whose key the request lacks', () => {
    expect(set.match(request({ path: '/users/42/profile' }))?.rule).toBe('catch-all');
    expect(set.match(request({ path: '/tenant/a', headers: { 'x-tenant': '' } }))?.rule).toBe('catch-all');
    expect(createRuleSet({ rules: [{ name: 'only-users', key: 'user', limit: { qps: 1 } }] }).match(request())).toBeUndefined();
  });

  it('gives the VIP key 100 per second and everyone else 10 (tiers)', async () => {
    const vip = request({ path: '/api/v1/data/q', headers: { 'x-api-key': 'vip-secret-key' } });
    const other = request({ path: '/api/v1/data/q', headers: { 'x-api-key': 'someone-else' }, ip: '198.51.100.1' });
    expect(set.match(other)?.tier).toBe('standard');
    expect(await admitted(set, vip, 150)).toBe(100);
    expect(await admitted(set, other, 50)).toBe(10);
  });

  it('keeps each tier its own count, even when tiers key requests the same way', async () => {
    const tiered = createRuleSet({
      rules: [
        {
          name: 'data',
          key: 'ip',
          tiers: [
            { name: 'vip', when: { key: { header: 'x-plan' }, in: ['vip'] }, limit: { perMinute: 5 } },
            { name: 'standard', limit: { perMinute: 5 } },
          ],
        },
      ],
    });
    const standard = request();
    const vip = request({ headers: { 'x-plan': 'vip' } });
    expect(tiered.match(vip)?.key).toBe(tiered.match(standard)?.key);
    expect(await admitted(tiered, standard, 2)).toBe(2);
    expect(await admitted(tiered, vip, 10)).toBe(5);
    expect(await admitted(tiered, standard, 10)).toBe(3);
  });

  it('checks every limit of a multi-limit rule', async () => {
    expect(await admitted(set, request({ path: '/users/7/x', user: '7' }), 5)).toBe(2);
  });

  it('names each limiter by rule and tier for events and metrics', () => {
    expect(set.match(request({ path: '/api/v1/data/q' }))?.limiter.rule).toBe('data/standard');
    expect(set.match(request({ method: 'POST', path: '/login' }))?.limiter.rule).toBe('login');
  });

  it('applies defaults and per-rule options (shadow, onStoreError share)', async () => {
    const shadowed = createRuleSet({
      defaults: { shadow: true, onStoreError: { share: 0.5 } },
      rules: [
        { name: 'a', limit: { qps: 1, burst: 1 } },
        { name: 'b', shadow: false, match: { path: '/b' }, limit: { qps: 1 } },
      ],
    });
    const a = shadowed.match(request())!;
    await a.limiter.consume(a.key);
    expect(await a.limiter.consume(a.key)).toMatchObject({ allowed: true, shadow: { allowed: false } });
    expect(shadowed.match(request({ path: '/b' }))?.rule).toBe('a');
  });

  it("advertises a failure-mode share under the rule's own names", async () => {
    const store = new ControlledStore();
    store.mode = 'reject';
    const shared = createRuleSet(
      {
        defaults: { onStoreError: { share: 0.5 } },
        rules: [
          { name: 'login', match: { path: '/login' }, limit: { perMinute: 10 } },
          {
            name: 'api',
            limits: [
              { qps: 100, burst: 10 },
              { name: 'daily', perDay: 1000 },
            ],
          },
        ],
      },
      { store },
    );
    const decide = async (path: string) => {
      const match = shared.match(request({ path }))!;
      return match.limiter.consume(match.key);
    };
    const login = await decide('/login');
    expect([login.source, login.limits.map((part) => part.name)]).toEqual(['fallback', ['login']]);
    expect((await decide('/api')).limits.map((part) => part.name)).toEqual(['1s', 'daily']);
  });
});

describe('update', () => {
  it('swaps the rules, and keeps them when the new document is invalid', async () => {
    const set = createRuleSet({ rules: [{ name: 'a', limit: { qps: 1, burst: 1 } }] });
    const reloads: string[][] = [];
    set.on('reload', (e) => reloads.push(e.rules));
    set.update({ rules: [{ name: 'b', limit: { qps: 1, burst: 3 } }] });
    expect(set.rules).toEqual(['b']);
    expect(() => set.update({ rules: [{ name: 'c', limit: { qps: -1 } }] })).toThrow(/rules\[0\]\.limit\.qps/);
    expect(set.rules).toEqual(['b']);
    expect(reloads).toEqual([['b']]);
  });
});
