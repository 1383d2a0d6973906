import { VirtualClock } from '@tollgate/testing';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  createHttpLimiter,
  createRuleSet,
  type HttpRateLimitOptions,
  type HttpRequestInfo,
  MemoryStore,
  RedisStore,
  type Store,
} from '../../src/index.js';
import { useRedisClient } from '../helpers/per-file-servers.js';

function request(ip: string | undefined, user?: string): HttpRequestInfo {
  return { ip, method: 'GET', path: '/api/items', headers: user === undefined ? {} : { 'x-user': user }, raw: { user } };
}

const byUser = (req: { user?: string }) => req.user;

const redisClient = useRedisClient();

let prefixes = 0;
const backends: [string, () => Partial<HttpRateLimitOptions> & { store: Store }][] = [
  ['memory', () => ({ store: new MemoryStore() })],
  ['redis', () => ({ store: new RedisStore({ client: redisClient(), time: 'client' }), prefix: `identities-${++prefixes}` })],
];

describe.each(backends)('the keyed operations of an HTTP limiter, on %s', (_name, backend) => {
  function limiterOf(options: Partial<HttpRateLimitOptions> = {}) {
    const clock = new VirtualClock();
    return createHttpLimiter({ perMinute: 2, clock: clock.now, ...backend(), ...options } as HttpRateLimitOptions);
  }

  async function exhaust(http: ReturnType<typeof limiterOf>, info: HttpRequestInfo): Promise<void> {
    for (let i = 0; i < 2; i++) expect((await http.check(info)).action).toBe('pass');
    expect((await http.check(info)).action).toBe('reject');
  }

  it('reset and peek take the client address, in any spelling, without a key function', async () => {
    const http = limiterOf();
    await exhaust(http, request('203.0.113.7'));
    expect(await http.limiter.peek('203.0.113.7')).toMatchObject({ allowed: false, remaining: 0 });
    await http.limiter.reset('::ffff:203.0.113.7');
    expect(await http.limiter.peek('203.0.113.7')).toMatchObject({ allowed: true });
    expect((await http.check(request('203.0.113.7'))).action).toBe('pass');
  });

  it('groups an IPv6 address to its /64, as requests are grouped', async () => {
    const http = limiterOf();
    await exhaust(http, request('2001:db8:aa:1::1'));
    // Another address of the same /64 names the same client.
    await http.limiter.reset('2001:db8:aa:1:ffff::9');
    expect((await http.check(request('2001:db8:aa:1::1'))).action).toBe('pass');
    await exhaust(http, request('2001:db8:aa:2::1'));
    // The identity itself, as events report it, maps to itself.
    await http.limiter.reset('ip:2001:db8:aa:2::/64');
    expect((await http.check(request('2001:db8:aa:2::1'))).action).toBe('pass');
  });

  it('takes what the key function returns, and `ip:<address>` for a client it left to its address', async () => {
    const http = limiterOf({ key: byUser });
    await exhaust(http, request('203.0.113.7', 'ann'));
    await exhaust(http, request('198.51.100.1'));
    expect(await http.limiter.peek('ann')).toMatchObject({ remaining: 0 });
    await http.limiter.reset('ann');
    expect((await http.check(request('203.0.113.7', 'ann'))).action).toBe('pass');
    // A bare address is a key of the key function's: the client limited by its address is untouched...
    await http.limiter.reset('198.51.100.1');
    expect((await http.check(request('198.51.100.1'))).action).toBe('reject');
    // ...and named ip:<address>.
    await http.limiter.reset('ip:198.51.100.1');
    expect((await http.check(request('198.51.100.1'))).action).toBe('pass');
  });

  it('takes a user key that looks like an address, or like an identity, written key:<it>', async () => {
    const http = limiterOf({ key: byUser });
    await exhaust(http, request('203.0.113.7', '10.0.0.1'));
    await exhaust(http, request('203.0.113.7', 'ip:10.0.0.2'));
    await http.limiter.reset('10.0.0.1');
    expect((await http.check(request('203.0.113.7', '10.0.0.1'))).action).toBe('pass');
    await http.limiter.reset('key:ip:10.0.0.2');
    expect((await http.check(request('203.0.113.7', 'ip:10.0.0.2'))).action).toBe('pass');
  });

  it('refunds and consumes under the user key, as the requests count', async () => {
    const http = limiterOf({ key: byUser });
    await exhaust(http, request('203.0.113.7', 'ann'));
    expect(await http.limiter.refund('ann')).toMatchObject({ allowed: true });
    expect(await http.limiter.consume('ann')).toMatchObject({ allowed: true, remaining: 0 });
    expect((await http.check(request('203.0.113.7', 'ann'))).action).toBe('reject');
  });

  it('penalty and block take the user key, and the client address grouped as requests are', async () => {
    const http = limiterOf({ key: byUser, blockDuration: '1m' });
    expect(await http.limiter.penalty('ann', { cost: 5 })).toMatchObject({ allowed: false, remaining: 0 });
    expect((await http.check(request('203.0.113.7', 'ann'))).action).toBe('reject');
    expect(await http.limiter.block('ip:2001:db8:aa:1::1', '1m')).toMatchObject({ allowed: false, retryAfterMs: 60_000 });
    expect((await http.check(request('2001:db8:aa:1:ffff::9'))).action).toBe('reject');
    expect((await http.check(request('2001:db8:aa:2::1'))).action).toBe('pass');
    const byAddress = limiterOf({ blockDuration: 0 });
    await byAddress.limiter.block('::ffff:203.0.113.7', '1m');
    expect((await byAddress.check(request('203.0.113.7'))).action).toBe('reject');
  });

  it('refuses what names no client, instead of resolving and changing nothing', async () => {
    const http = limiterOf();
    await expect(http.limiter.reset('k1')).rejects.toMatchObject({ code: 'ERR_TOLLGATE_INVALID_KEY', field: 'key' });
    await expect(http.limiter.peek('ip:k1')).rejects.toMatchObject({ code: 'ERR_TOLLGATE_INVALID_KEY' });
    expect(() => http.identityOf('')).toThrow(expect.objectContaining({ code: 'ERR_TOLLGATE_INVALID_KEY' }));
    await expect(limiterOf({ key: byUser }).limiter.reset('ip:nobody')).rejects.toMatchObject({ code: 'ERR_TOLLGATE_INVALID_KEY' });
  });
});

describe('identityOf', () => {
  it('maps every identity it gives to itself, with or without a key function, at any IPv6 grouping', () => {
    const named = fc.oneof(
      fc.ipV4(),
      fc.ipV6(),
      fc.ipV4().map((ip) => `::ffff:${ip}`),
      fc.constant('unknown'),
    );
    fc.assert(
      fc.property(
        named,
        fc.string({ minLength: 1, maxLength: 20 }),
        fc.constantFrom<number | false>(64, 48, 128, false),
        (ip, key, subnet) => {
          const plain = createHttpLimiter({ perMinute: 1, ipv6Subnet: subnet });
          const keyed = createHttpLimiter({ perMinute: 1, ipv6Subnet: subnet, key: byUser });
          for (const http of [plain, keyed]) {
            const address = http.identityOf(`ip:${ip}`);
            expect(http.identityOf(address)).toBe(address);
          }
          const user = keyed.identityOf(key);
          expect(user).toBe(key.startsWith('key:') ? key : key.startsWith('ip:') ? user : `key:${key}`);
          expect(keyed.identityOf(user)).toBe(user);
        },
      ),
    );
  });

  it('names a client as decision events do', async () => {
    const keys: string[] = [];
    const http = createHttpLimiter({ perMinute: 5, key: byUser, events: { allowed: ({ key }) => keys.push(key) } });
    await http.check(request('203.0.113.7', 'ann'));
    await http.check(request('2001:db8::1'));
    await http.limiter.consume('ann');
    await http.limiter.consume('ip:2001:db8::77');
    expect(keys).toEqual(['key:ann', 'ip:2001:db8:0:0::/64', 'key:ann', 'ip:2001:db8:0:0::/64']);
  });

  it('lets a reset by the user key end a denial the local deny cache holds', async () => {
    const clock = new VirtualClock();
    const store = new RedisStore({ client: redisClient(), time: 'client' });
    const http = createHttpLimiter({ perMinute: 1, clock: clock.now, store, prefix: 'deny-cache', key: byUser });
    expect((await http.check(request('203.0.113.7', 'ann'))).action).toBe('pass');
    expect((await http.check(request('203.0.113.7', 'ann'))).action).toBe('reject');
    const cached = await http.check(request('203.0.113.7', 'ann'));
    expect(cached.action === 'reject' && cached.decision.source).toBe('cache');
    await http.limiter.reset('ann');
    expect((await http.check(request('203.0.113.7', 'ann'))).action).toBe('pass');
  });
});

describe('identitiesOf (rule sets)', () => {
  const document = {
    rules: [
      { name: 'login', match: { path: '/login' }, limit: { perMinute: 1 } },
      { name: 'accounts', match: { path: '/users/**' }, key: 'user', limit: { perMinute: 1 } },
      {
        name: 'api',
        match: { path: '/api/**' },
        key: { header: 'x-tenant' },
        tiers: [
          { name: 'pro', when: { in: ['acme'] }, limit: { perMinute: 1 } },
          { name: 'free', limit: { perMinute: 1 } },
        ],
      },
    ],
  };

  it('gives every rule and tier limiting a client, with the key it is limited under there', () => {
    const http = createHttpLimiter({ rules: createRuleSet(document) });
    const found = http.identitiesOf({ ip: '2001:db8::1', user: 'ann', headers: { 'x-tenant': 'acme' } });
    expect(found.map(({ rule, tier, key }) => [rule, tier, key])).toEqual([
      ['login', undefined, 'ip:2001:db8:0:0::/64'],
      ['accounts', undefined, 'user:ann'],
      ['api', 'pro', 'header:x-tenant:acme'],
      ['api', 'free', 'header:x-tenant:acme'],
    ]);
    expect(http.identitiesOf({ user: 'ann' }).map(({ rule }) => rule)).toEqual(['accounts']);
    expect(() => http.identitiesOf({ ip: 'nowhere' })).toThrow(expect.objectContaining({ code: 'ERR_TOLLGATE_INVALID_KEY', field: 'ip' }));
  });

  it('resets a client in every rule by the keys it gives', async () => {
    const http = createHttpLimiter({ rules: createRuleSet(document), user: byUser });
    const login = { ...request('203.0.113.7', 'ann'), path: '/login' };
    const account = { ...request('203.0.113.7', 'ann'), path: '/users/me' };
    for (const info of [login, account]) {
      expect((await http.check(info)).action).toBe('pass');
      expect((await http.check(info)).action).toBe('reject');
    }
    for (const { limiter, key } of http.identitiesOf({ ip: '::ffff:203.0.113.7', user: 'ann' })) await limiter.reset(key);
    for (const info of [login, account]) expect((await http.check(info)).action).toBe('pass');
  });
});
