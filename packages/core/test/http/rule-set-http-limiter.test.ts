import { VirtualClock } from '@tollgate/testing';
import { describe, expect, it } from 'vitest';
import { createHttpLimiter, createRuleSet, type HttpRequestInfo, type HttpVerdict, TollgateError } from '../../src/index.js';

function request(ip: string | undefined, extra: Partial<HttpRequestInfo> = {}): HttpRequestInfo {
  return { ip, method: 'GET', path: '/api/items', headers: {}, raw: { ip }, ...extra };
}

function header(verdict: HttpVerdict, name: string): string | undefined {
  if (verdict.action === 'skip') return undefined;
  return verdict.headers.find(([field]) => field.toLowerCase() === name.toLowerCase())?.[1];
}

async function actions(check: () => Promise<HttpVerdict>, count: number): Promise<string[]> {
  const seen: string[] = [];
  for (let i = 0; i < count; i++) seen.push((await check()).action);
  return seen;
}

const document = {
  rules: [
    { name: 'accounts', match: { path: '/users/**' }, key: 'user', limit: { perMinute: 1 } },
    { name: 'api', match: { path: '/api/**' }, limit: { perMinute: 2 } },
  ],
};

describe('createHttpLimiter({ rules })', () => {
  it('groups IPv6 clients by ipv6Subnet and IPv4-mapped addresses with their IPv4, as inline', async () => {
    const http = createHttpLimiter({ rules: createRuleSet(document) });
    expect(await actions(() => http.check(request('2001:db8:1:2::1')), 2)).toEqual(['pass', 'pass']);
    expect((await http.check(request('2001:db8:1:2:ffff::9'))).action).toBe('reject');
    expect((await http.check(request('2001:db8:1:3::1'))).action).toBe('pass');
    expect(await actions(() => http.check(request('::ffff:198.51.100.4')), 2)).toEqual(['pass', 'pass']);
    expect((await http.check(request('198.51.100.4'))).action).toBe('reject');
    const whole = createHttpLimiter({ rules: createRuleSet(document), ipv6Subnet: false });
    expect(await actions(() => whole.check(request('2001:db8:1:2::1')), 2)).toEqual(['pass', 'pass']);
    expect((await whole.check(request('2001:db8:1:2::2'))).action).toBe('pass');
  });

  it('limits requests without a usable address under one shared identity instead of letting them through', async () => {
    const http = createHttpLimiter({ rules: createRuleSet(document) });
    expect(await actions(() => http.check(request(undefined)), 2)).toEqual(['pass', 'pass']);
    expect((await http.check(request('not an address'))).action).toBe('reject');
  });

  it('reads the user from the user() option for rules keyed by user; anonymous requests fall through to later rules', async () => {
    const http = createHttpLimiter({ rules: createRuleSet(document), user: (req: { user?: string }) => req.user });
    const asUser = (user: string | undefined) => request('198.51.100.9', { path: '/users/me', raw: { user } });
    expect(await actions(() => http.check(asUser('ann')), 2)).toEqual(['pass', 'reject']);
    expect((await http.check(asUser('bob'))).action).toBe('pass');
    expect((await http.check(asUser(undefined))).action).toBe('skip');
    const broken = createHttpLimiter({ rules: createRuleSet(document), user: () => 7 as unknown as string });
    await expect(broken.check(asUser('ann'))).rejects.toMatchObject({ code: 'ERR_TOLLGATE_INVALID_KEY', field: 'user' });
  });

  it('applies updated rules to the next request, with the policy header of the rule now in force, named as the rule', async () => {
    const clock = new VirtualClock();
    const rules = createRuleSet(document, { clock: clock.now });
    const http = createHttpLimiter({ rules, headers: 'draft+legacy' });
    const first = await http.check(request('198.51.100.9'));
    expect(header(first, 'RateLimit-Policy')).toBe('"api";q=2;w=60');
    expect(header(first, 'X-RateLimit-Reset')).toBe(String(Math.ceil((clock.now() + 30_000) / 1000)));
    rules.update({ rules: [{ name: 'login', match: { path: '/api/**' }, limit: { qps: 5, burst: 10 } }] });
    expect(header(await http.check(request('198.51.100.9')), 'RateLimit-Policy')).toBe('"login";q=10;w=2');
    expect((await http.check(request('198.51.100.9', { path: '/users/me' }))).action).toBe('skip');
  });

  it('skips allow-listed and skipped requests without matching', async () => {
    const http = createHttpLimiter({
      rules: createRuleSet(document),
      allowList: ['10.0.0.0/8'],
      skip: (req: { internal?: boolean }) => req.internal === true,
    });
    expect(await actions(() => http.check(request('10.1.2.3')), 4)).toEqual(['skip', 'skip', 'skip', 'skip']);
    expect(await actions(() => http.check(request('198.51.100.9', { raw: { internal: true } })), 4)).toEqual([
      'skip',
      'skip',
      'skip',
      'skip',
    ]);
    expect(await actions(() => http.check(request('198.51.100.9')), 3)).toEqual(['pass', 'pass', 'reject']);
  });

  it('refuses options that only an inline rule takes, naming the field', () => {
    const rules = createRuleSet(document);
    for (const [options, field] of [
      [{ rules: undefined }, 'rules'],
      [{ rules, perMinute: 5 }, 'perMinute'],
      [{ rules, store: {} }, 'store'],
      [{ rules, prefix: 'p' }, 'prefix'],
      [{ rules, key: () => 'k' }, 'key'],
      [{ rules, statusCode: 200 }, 'statusCode'],
    ] as const) {
      expect(() => createHttpLimiter(options as never)).toThrow(TollgateError);
      expect(() => createHttpLimiter(options as never)).toThrow(expect.objectContaining({ field }));
    }
  });
});
