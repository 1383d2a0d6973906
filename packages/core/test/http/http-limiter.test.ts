import { readFileSync } from 'node:fs';
import { VirtualClock } from '@tollgate/testing';
import { parseList } from 'structured-headers';
import { describe, expect, it, vi } from 'vitest';
import {
  createHttpLimiter,
  type Decision,
  type HttpRequestInfo,
  type HttpVerdict,
  MemoryStore,
  type Store,
  TollgateError,
} from '../../src/index.js';

function request(ip: string | undefined, extra: Partial<HttpRequestInfo> = {}): HttpRequestInfo {
  return { ip, method: 'GET', path: '/', headers: {}, raw: { ip }, ...extra };
}

function header(verdict: HttpVerdict, name: string): string | undefined {
  if (verdict.action === 'skip') return undefined;
  return verdict.headers.find(([field]) => field.toLowerCase() === name.toLowerCase())?.[1];
}

async function burst(check: () => Promise<HttpVerdict>, count: number): Promise<HttpVerdict[]> {
  const verdicts: HttpVerdict[] = [];
  for (let i = 0; i < count; i++) verdicts.push(await check());
  return verdicts;
}

describe('createHttpLimiter', () => {
  it('passes exactly the configured count, then rejects with 429, headers and a text body', async () => {
    const clock = new VirtualClock();
    const http = createHttpLimiter({ perMinute: 3, clock: clock.now });
    const verdicts = await burst(() => http.check(request('203.0.113.7')), 4);
    expect(verdicts.map((v) => v.action)).toEqual(['pass', 'pass', 'pass', 'reject']);
    const rejected = verdicts[3]!;
    if (rejected.action !== 'reject') throw new Error('expected a rejection');
    expect(rejected.status).toBe(429);
    expect(rejected.contentType).toBe('text/plain; charset=utf-8');
    expect(rejected.body).toBe('Too many requests: retry in 20 seconds.');
    expect(header(rejected, 'Retry-After')).toBe('20');
    expect(header(rejected, 'Cache-Control')).toBe('no-store');
    expect(header(rejected, 'RateLimit-Policy')).toBe('"default";q=3;w=60');
    // Exhausted: the effective window ends when a unit is back, as Retry-After says (-11 §4.1.2, §6).
    expect(header(rejected, 'RateLimit')).toBe('"default";r=0;t=20');
    expect(header(verdicts[0]!, 'RateLimit')).toBe('"default";r=2;t=20');
    expect(header(verdicts[0]!, 'Retry-After')).toBeUndefined();
  });

  it('emits headers that parse as RFC 9651 structured-field lists, one member per limit', async () => {
    const http = createHttpLimiter({
      limits: [
        { name: 'burst', qps: 10, burst: 5 },
        { name: 'daily', perDay: 1000 },
      ],
    });
    const verdict = await http.check(request('203.0.113.7'));
    const policy = parseList(header(verdict, 'RateLimit-Policy')!);
    expect(policy.map(([name, params]) => [name, Object.fromEntries(params)])).toEqual([
      ['burst', { q: 5, w: 1 }],
      ['daily', { q: 1000, w: 86400 }],
    ]);
    const state = parseList(header(verdict, 'RateLimit')!);
    expect(state.map(([name, params]) => [name, Object.fromEntries(params)])).toEqual([
      ['burst', { r: 4, t: 1 }],
      ['daily', { r: 999, t: 87 }],
    ]);
  });

  it('tells a client refused a concurrency slot to retry in 1 second, never after the lease TTL', async () => {
    const clock = new VirtualClock();
    const http = createHttpLimiter({
      limits: [{ algorithm: 'concurrency', limit: 1, leaseTtl: '2m' }, { perMinute: 100 }],
      clock: clock.now,
    });
    expect((await http.check(request('203.0.113.7'))).action).toBe('pass');
    const busy = await http.check(request('203.0.113.7'));
    expect(busy).toMatchObject({ action: 'reject', status: 429, body: 'Too many requests: retry in 1 second.' });
    expect(header(busy, 'Retry-After')).toBe('1');
    // Another limit's denial keeps its own time.
    const perMinute = createHttpLimiter({ perMinute: 1, clock: clock.now });
    await perMinute.check(request('203.0.113.7'));
    expect(header(await perMinute.check(request('203.0.113.7')), 'Retry-After')).toBe('60');
  });

  it.each([
    '../../HTTP.md',
    '../../../express/README.md',
    '../../../koa/README.md',
    '../../../fastify/README.md',
    '../../../hono/README.md',
    '../../../nestjs/README.md',
  ])('%s says the Retry-After a client refused a concurrency slot is sent', async (doc) => {
    const http = createHttpLimiter({ algorithm: 'concurrency', limit: 1, leaseTtl: '2m', clock: new VirtualClock().now });
    await http.check(request('203.0.113.7'));
    const sent = header(await http.check(request('203.0.113.7')), 'Retry-After');
    const text = readFileSync(new URL(doc, import.meta.url), 'utf8').replace(/\s+/g, ' ');
    expect(text).toContain(`with \`Retry-After: ${sent}\``);
    expect(text).not.toMatch(/Retry-After[^.]*oldest lease/);
  });

  it('lets the request through once the clock has moved by Retry-After', async () => {
    const clock = new VirtualClock();
    const http = createHttpLimiter({ qps: 0.5, burst: 2, clock: clock.now });
    await burst(() => http.check(request('203.0.113.7')), 2);
    const rejected = await http.check(request('203.0.113.7'));
    expect(rejected.action).toBe('reject');
    const seconds = Number(header(rejected, 'Retry-After'));
    expect(seconds).toBe(2);
    clock.advance(seconds * 1000 - 1);
    expect((await http.check(request('203.0.113.7'))).action).toBe('reject');
    clock.advance(1);
    expect((await http.check(request('203.0.113.7'))).action).toBe('pass');
  });

  it('adds the legacy headers on request, with the reset as epoch seconds', async () => {
    const clock = new VirtualClock(Date.UTC(2026, 0, 1));
    const both = createHttpLimiter({ perMinute: 2, clock: clock.now, headers: 'draft+legacy' });
    const verdict = await both.check(request('203.0.113.7'));
    expect(header(verdict, 'X-RateLimit-Limit')).toBe('2');
    expect(header(verdict, 'X-RateLimit-Remaining')).toBe('1');
    expect(header(verdict, 'X-RateLimit-Reset')).toBe(String(Date.UTC(2026, 0, 1) / 1000 + 30));
    expect(header(verdict, 'RateLimit')).toBeDefined();

    const legacy = createHttpLimiter({ perMinute: 2, clock: clock.now, headers: 'legacy' });
    const legacyVerdict = await legacy.check(request('203.0.113.7'));
    expect(header(legacyVerdict, 'RateLimit')).toBeUndefined();
    expect(header(legacyVerdict, 'X-RateLimit-Remaining')).toBe('1');

    const none = createHttpLimiter({ perMinute: 1, clock: clock.now, headers: false });
    const [passed, rejected] = await burst(() => none.check(request('203.0.113.7')), 2);
    // No rate-limit field at all, Retry-After included (as express-rate-limit with both header options off).
    expect(passed?.action === 'pass' && passed.headers).toEqual([]);
    expect(rejected?.action === 'reject' && rejected.headers).toEqual([['cache-control', 'no-store']]);
  });

  it('answers JSON, problem+json, a custom message and a custom status', async () => {
    const json = await deny({ responseType: 'json' });
    expect(json.contentType).toBe('application/json; charset=utf-8');
    expect(JSON.parse(json.body)).toEqual({
      error: 'Too Many Requests',
      message: expect.stringMatching(/^Too many requests: retry in \d+ seconds\.$/),
      limit: 'default',
      retryAfter: expect.any(Number),
    });
    const problem = await deny({ responseType: 'problem+json', statusCode: 503 });
    expect(problem.status).toBe(503);
    expect(problem.contentType).toBe('application/problem+json');
    expect(JSON.parse(problem.body)).toMatchObject({ type: 'about:blank', title: 'Service Unavailable', status: 503 });
    const text = await deny({ message: 'Slow down.' });
    expect([text.contentType, text.body]).toEqual(['text/plain; charset=utf-8', 'Slow down.']);
    const custom = await deny({
      message: (req: { ip: string }, decision: { remaining: number }) => ({ who: req.ip, left: decision.remaining }),
    });
    expect([custom.contentType, custom.body]).toEqual(['application/json; charset=utf-8', '{"who":"203.0.113.7","left":0}']);
  });

  it('gives the body as a value too: the text, or the object the JSON body serialises', async () => {
    const text = await deny({});
    expect(text.payload).toBe(text.body);
    for (const responseType of ['json', 'problem+json']) {
      const json = await deny({ responseType });
      expect(json.payload).toEqual(JSON.parse(json.body));
    }
    const message = { error: 'slow down' };
    expect((await deny({ message })).payload).toBe(message);
  });

  it('never limits allow-listed addresses and CIDRs (v4, v6 and IPv4-mapped)', async () => {
    const http = createHttpLimiter({ perMinute: 1, allowList: ['10.0.0.0/8', '2001:db8::/32', '198.51.100.4'] });
    for (const ip of ['10.1.2.3', '::ffff:10.9.9.9', '2001:db8:ffff::1', '198.51.100.4']) {
      const verdicts = await burst(() => http.check(request(ip)), 3);
      expect(verdicts.map((v) => v.action)).toEqual(['skip', 'skip', 'skip']);
    }
    const outsider = await burst(() => http.check(request('198.51.100.5')), 2);
    expect(outsider.map((v) => v.action)).toEqual(['pass', 'reject']);
  });

  it('skips what skip() says, without counting it', async () => {
    const http = createHttpLimiter({
      perMinute: 1,
      skip: async (_req, info) => info.path === '/health',
    });
    const health = await burst(() => http.check(request('203.0.113.7', { path: '/health' })), 3);
    expect(health.map((v) => v.action)).toEqual(['skip', 'skip', 'skip']);
    expect((await http.check(request('203.0.113.7'))).action).toBe('pass');
  });

  it('tells adapters it reads only the address unless key() or skip() is given', () => {
    expect(createHttpLimiter({ perMinute: 1 }).readsOnlyAddress).toBe(true);
    expect(createHttpLimiter({ perMinute: 1, key: () => 'k' }).readsOnlyAddress).toBe(false);
    expect(createHttpLimiter({ perMinute: 1, skip: () => false }).readsOnlyAddress).toBe(false);
  });

  it('checkNow answers at once on the memory store, and with the promise of check otherwise', async () => {
    const clock = new VirtualClock();
    const http = createHttpLimiter({ perMinute: 2, clock: clock.now, allowList: ['198.51.100.1'] });
    const first = http.checkNow!(request('203.0.113.7'));
    expect(first).not.toBeInstanceOf(Promise);
    expect(header(first as HttpVerdict, 'RateLimit')).toBe('"default";r=1;t=30');
    expect(http.checkNow!(request('198.51.100.1'))).toEqual({ action: 'skip' });
    // The two share one count: the second request of two takes the last unit, the third is refused.
    expect(((await http.check(request('203.0.113.7'))) as { action: string }).action).toBe('pass');
    const rejected = http.checkNow!(request('203.0.113.7'));
    expect(rejected).toBeInstanceOf(Promise);
    expect((await rejected).action).toBe('reject');

    const elsewhere = createHttpLimiter({ perMinute: 2, store: { execute: (op) => new MemoryStore().execute(op) } });
    const answer = elsewhere.checkNow!(request('203.0.113.7'));
    expect(answer).toBeInstanceOf(Promise);
    expect((await answer).action).toBe('pass');
    const keyed = createHttpLimiter({ perMinute: 2, key: () => 'user-1' });
    expect(keyed.checkNow!(request('203.0.113.7'))).toBeInstanceOf(Promise);
  });

  it('groups IPv6 clients by /64 unless told otherwise', async () => {
    const grouped = createHttpLimiter({ perMinute: 1 });
    expect((await grouped.check(request('2001:db8:1:2::a'))).action).toBe('pass');
    expect((await grouped.check(request('2001:db8:1:2:ffff::b'))).action).toBe('reject');
    expect((await grouped.check(request('2001:db8:1:3::a'))).action).toBe('pass');
    const whole = createHttpLimiter({ perMinute: 1, ipv6Subnet: false });
    expect((await whole.check(request('2001:db8:1:2::a'))).action).toBe('pass');
    expect((await whole.check(request('2001:db8:1:2::b'))).action).toBe('pass');
    const mapped = createHttpLimiter({ perMinute: 1 });
    expect((await mapped.check(request('203.0.113.7'))).action).toBe('pass');
    expect((await mapped.check(request('::ffff:203.0.113.7'))).action).toBe('reject');
  });

  it('counts requests without a usable address under one shared identity', async () => {
    const http = createHttpLimiter({ perMinute: 2 });
    expect((await http.check(request(undefined))).action).toBe('pass');
    expect((await http.check(request('not-an-ip'))).action).toBe('pass');
    expect((await http.check(request('also garbage'))).action).toBe('reject');
    expect((await http.check(request('203.0.113.7'))).action).toBe('pass');
  });

  it('limits by a custom key, and falls back to the IP when it returns undefined', async () => {
    const http = createHttpLimiter({
      perMinute: 1,
      key: (_req, info) => (typeof info.headers['x-api-key'] === 'string' ? info.headers['x-api-key'] : undefined),
    });
    const withKey = (ip: string, apiKey: string) => request(ip, { headers: { 'x-api-key': apiKey } });
    expect((await http.check(withKey('203.0.113.1', 'alpha'))).action).toBe('pass');
    expect((await http.check(withKey('203.0.113.2', 'alpha'))).action).toBe('reject');
    expect((await http.check(withKey('203.0.113.1', 'beta'))).action).toBe('pass');
    // A key equal to an IP is still another identity than that IP.
    expect((await http.check(withKey('203.0.113.9', '203.0.113.1'))).action).toBe('pass');
    expect((await http.check(request('203.0.113.1'))).action).toBe('pass');
    expect((await http.check(request('203.0.113.1'))).action).toBe('reject');
    const bad = createHttpLimiter({ perMinute: 1, key: () => 42 as unknown as string });
    await expect(bad.check(request('203.0.113.1'))).rejects.toMatchObject({ code: 'ERR_TOLLGATE_INVALID_KEY', field: 'key' });
  });

  it("treats an empty key (an empty `x-api-key:` header) as no key: the client's IP is limited", async () => {
    const http = createHttpLimiter({ perMinute: 1, key: (_req, info) => info.headers['x-api-key'] as string | undefined });
    const emptyKey = request('203.0.113.1', { headers: { 'x-api-key': '' } });
    expect((await http.check(emptyKey)).action).toBe('pass');
    expect((await http.check(request('203.0.113.1'))).action).toBe('reject');
    expect((await http.check(emptyKey)).action).toBe('reject');
    expect((await http.check(request('203.0.113.2', { headers: { 'x-api-key': '' } }))).action).toBe('pass');
  });

  it('gives every rule its own keys, even identical rules on one store', async () => {
    const store = new MemoryStore();
    const login = createHttpLimiter({ perMinute: 1, store });
    const signup = createHttpLimiter({ perMinute: 1, store });
    expect((await login.check(request('203.0.113.7'))).action).toBe('pass');
    expect((await signup.check(request('203.0.113.7'))).action).toBe('pass');
    expect((await login.check(request('203.0.113.7'))).action).toBe('reject');
    const shared = [createHttpLimiter({ perMinute: 1, store, prefix: 'api' }), createHttpLimiter({ perMinute: 1, store, prefix: 'api' })];
    expect((await shared[0]!.check(request('203.0.113.7'))).action).toBe('pass');
    expect((await shared[1]!.check(request('203.0.113.7'))).action).toBe('reject');
  });

  it('shapes: a decision with delayMs passes with that delay and a Retry-After', async () => {
    const shaping: Store = {
      execute: async (op) => ({
        committed: true,
        outcomes: op.limits.map(() => ({ allowed: true, remaining: 0, resetAfterMs: 2500, retryAfterMs: 0, delayMs: 1200 })),
      }),
    };
    const http = createHttpLimiter({ qps: 1, store: shaping });
    const verdict = await http.check(request('203.0.113.7'));
    if (verdict.action !== 'pass') throw new Error('expected a pass');
    expect(verdict.delayMs).toBe(1200);
    expect(header(verdict, 'Retry-After')).toBe('2');
  });

  it('refunds failed or successful requests through limiter.refund, once per request', async () => {
    const failed = createHttpLimiter({ perMinute: 5, skipFailedRequests: true, key: () => 'user-1' });
    const refund = vi.fn(async () => {});
    Object.assign(failed.limiter, { refund });
    const pass = async () => {
      const verdict = await failed.check(request('203.0.113.7'));
      if (verdict.action !== 'pass') throw new Error('expected a pass');
      return verdict;
    };
    (await pass()).settle(200);
    expect(refund).not.toHaveBeenCalled();
    const v = await pass();
    v.settle(500);
    v.settle(500);
    const hungUp = await pass();
    hungUp.settle(undefined);
    // Each refund names the decision that charged: a late one gives back only what it still holds.
    expect(refund.mock.calls).toEqual([
      ['key:user-1', { charge: v.decision }],
      ['key:user-1', { charge: hungUp.decision }],
    ]);

    const succeeded = createHttpLimiter({ perMinute: 5, skipSuccessfulRequests: true });
    const refundOk = vi.fn(async () => {});
    Object.assign(succeeded.limiter, { refund: refundOk });
    const decisions: Decision[] = [];
    for (const status of [200, 302, 404]) {
      const verdict = await succeeded.check(request('203.0.113.7'));
      if (verdict.action !== 'pass') throw new Error('expected a pass');
      verdict.settle(status);
      decisions.push(verdict.decision);
    }
    expect(refundOk.mock.calls).toEqual([
      ['ip:203.0.113.7', { charge: decisions[0] }],
      ['ip:203.0.113.7', { charge: decisions[1] }],
    ]);
  });

  it('rejects bad options with an error naming the field', () => {
    const cases: [object, string][] = [
      [{ allowList: ['10.0.0.0/33'] }, 'allowList[0]'],
      [{ allowList: ['1.2.3.4', 'nope'] }, 'allowList[1]'],
      [{ allowList: '10.0.0.0/8' }, 'allowList'],
      [{ ipv6Subnet: 129 }, 'ipv6Subnet'],
      [{ headers: 'ietf' }, 'headers'],
      [{ responseType: 'html' }, 'responseType'],
      [{ statusCode: 200 }, 'statusCode'],
      [{ key: 'x-api-key' }, 'key'],
      [{ skipFailedRequests: 'yes' }, 'skipFailedRequests'],
    ];
    for (const [options, field] of cases) {
      let error: unknown;
      try {
        createHttpLimiter({ perMinute: 1, ...options });
      } catch (caught) {
        error = caught;
      }
      expect(error, field).toBeInstanceOf(TollgateError);
      expect((error as TollgateError).field).toBe(field);
    }
    expect(() => createHttpLimiter({ perMinute: 1, bogus: 1 } as object as { perMinute: number })).toThrow(/spec.bogus/);
  });
});

/** The rejection of a second request from one address, under `options` at one per minute. */
async function deny(options: object) {
  const http = createHttpLimiter({ perMinute: 1, ...options });
  await http.check(request('203.0.113.7'));
  const verdict = await http.check(request('203.0.113.7'));
  if (verdict.action !== 'reject') throw new Error('expected a rejection');
  return verdict;
}
