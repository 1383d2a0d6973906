import { VirtualClock } from '@tollgate/testing';
import { describe, expect, it, vi } from 'vitest';
import { createHttpLimiter, type HttpRateLimitOptions, type HttpRequestInfo, type HttpVerdict, RedisStore } from '../../src/index.js';
import { driverCalls } from '../helpers/command-stats.js';
import { useRedisClient } from '../helpers/per-file-servers.js';

const PLANS: Record<string, number> = { free: 2, pro: 5, banned: 0 };

interface Req {
  plan?: string;
}

const byPlan = (req: Req) => PLANS[req.plan ?? 'free']!;

function request(ip: string, plan?: string, path = '/'): HttpRequestInfo {
  return { ip, method: 'GET', path, headers: {}, raw: { plan } satisfies Req };
}

function headersOf(verdict: HttpVerdict): Record<string, string> {
  return verdict.action === 'skip' ? {} : Object.fromEntries(verdict.headers);
}

async function actions(check: () => Promise<HttpVerdict>, count: number): Promise<string[]> {
  const seen: string[] = [];
  for (let i = 0; i < count; i++) seen.push((await check()).action);
  return seen;
}

function limiterOf(options: HttpRateLimitOptions) {
  const clock = new VirtualClock(Date.UTC(2026, 0, 1));
  return createHttpLimiter({ clock: clock.now, ...options });
}

describe('a limit chosen per request', () => {
  it.each([
    ['a function', byPlan],
    ['an async function', async (req: Req) => byPlan(req)],
  ])('as %s: each request is limited by its value, with the headers of that value', async (_name, limit) => {
    const http = limiterOf({ windowMs: 60_000, limit });
    expect(await actions(() => http.check(request('198.51.100.1', 'free')), 3)).toEqual(['pass', 'pass', 'reject']);
    const pro = await http.check(request('198.51.100.2', 'pro'));
    expect(headersOf(pro)).toEqual({ 'ratelimit-policy': '"default";q=5;w=60', ratelimit: '"default";r=4;t=60' });
    expect(pro.action === 'pass' && pro.decision).toMatchObject({ limit: 5, remaining: 4 });
    const free = await http.check(request('198.51.100.3', 'free'));
    expect(headersOf(free)).toEqual({ 'ratelimit-policy': '"default";q=2;w=60', ratelimit: '"default";r=1;t=60' });
  });

  it('keeps a client’s count when its value changes: an upgrade admits what is left of the new limit', async () => {
    const http = limiterOf({ windowMs: 60_000, limit: byPlan, headers: 'draft+legacy' });
    expect(await actions(() => http.check(request('198.51.100.1', 'free')), 3)).toEqual(['pass', 'pass', 'reject']);
    expect(await actions(() => http.check(request('198.51.100.1', 'pro')), 4)).toEqual(['pass', 'pass', 'pass', 'reject']);
    const back = await http.check(request('198.51.100.1', 'free'));
    expect(back.action).toBe('reject');
    expect(headersOf(back)).toMatchObject({ 'x-ratelimit-limit': '2', 'x-ratelimit-remaining': '0' });
  });

  it('a value of 0 refuses the request, with no Retry-After', async () => {
    const http = limiterOf({ windowMs: 60_000, limit: byPlan });
    const verdict = await http.check(request('198.51.100.1', 'banned'));
    expect(verdict.action).toBe('reject');
    expect(headersOf(verdict)).toEqual({
      'ratelimit-policy': '"default";q=0;w=60',
      ratelimit: '"default";r=0',
      'cache-control': 'no-store',
    });
  });

  it('chooses any count or rate, in one limit of several, from the request and its info', async () => {
    const perDay = vi.fn((_req: Req, info: HttpRequestInfo) => (info.path.startsWith('/export') ? 1 : 100));
    const http = limiterOf({
      limits: [
        { name: 'second', qps: 10, burst: (req: Req) => (req.plan === 'pro' ? 20 : 5) },
        { name: 'day', perDay },
      ],
    });
    const verdict = await http.check(request('198.51.100.1', 'pro', '/export/all'));
    expect(headersOf(verdict)['ratelimit-policy']).toBe('"second";q=20;w=2, "day";q=1;w=86400');
    expect(perDay).toHaveBeenCalledTimes(1);
    expect(perDay.mock.calls[0]![1]).toMatchObject({ path: '/export/all', ip: '198.51.100.1' });
    expect((await http.check(request('198.51.100.1', 'pro', '/export/all'))).action).toBe('reject');
    expect(http.readsOnlyAddress).toBe(false);
  });

  it('refunds under the value the request was limited by', async () => {
    const http = limiterOf({ windowMs: 60_000, limit: byPlan, skipFailedRequests: true });
    for (let i = 0; i < 5; i++) {
      const verdict = await http.check(request('198.51.100.1', 'pro'));
      if (verdict.action !== 'pass') throw new Error(`request ${i}: expected a pass`);
      verdict.settle(500);
    }
    await vi.waitFor(async () => expect((await http.limiter.withLimits({ limit: 5 }).consume('198.51.100.1')).remaining).toBe(4));
  });
});

describe('what a limit function does wrong', () => {
  it('its error fails the check as it is, as a throwing key() does', async () => {
    const failure = new Error('no plan');
    const thrown = limiterOf({
      windowMs: 1000,
      limit: () => {
        throw failure;
      },
    });
    await expect(thrown.check(request('198.51.100.1'))).rejects.toBe(failure);
    const rejected = limiterOf({ windowMs: 1000, limit: () => Promise.reject(failure) });
    await expect(rejected.check(request('198.51.100.1'))).rejects.toBe(failure);
  });

  it.each([
    [undefined, 'limit() returned undefined for this request: spec.limit must be a whole number >= 0 (got undefined)'],
    ['5', 'limit() returned "5" for this request: spec.limit must be a whole number >= 0 (got "5")'],
    [2.5, 'limit() returned 2.5 for this request: spec.limit must be a whole number >= 0 (got 2.5)'],
    [-1, 'limit() returned -1 for this request: spec.limit must be a whole number >= 0 (got -1)'],
  ])(
    'a value the rule cannot take (%j) fails the check with an error naming it, never lets the request through',
    async (value, message) => {
      const http = limiterOf({ windowMs: 1000, limit: () => value as number });
      await expect(http.check(request('198.51.100.1'))).rejects.toMatchObject({
        code: 'ERR_TOLLGATE_INVALID_SPEC',
        field: 'spec.limit',
        message,
      });
    },
  );

  it('a function where no count or rate is refused when the limiter is built', () => {
    expect(() => createHttpLimiter({ algorithm: 'fixed-window', limit: 5, window: (() => 1000) as never })).toThrow(
      expect.objectContaining({
        code: 'ERR_TOLLGATE_INVALID_OPTION',
        field: 'window',
        message: 'window cannot be a function: only counts and rates are chosen per request (limit)',
      }),
    );
    expect(() => createHttpLimiter({ limits: [{ perMinute: 1 }, { perDay: 5, period: (() => 1) as never }] })).toThrow(
      expect.objectContaining({ field: 'limits[1].period' }),
    );
  });
});

describe('the limiter of a rule chosen per request', () => {
  it('needs withLimits for what depends on the value; reset works as it is', async () => {
    const http = limiterOf({ windowMs: 60_000, limit: byPlan });
    await actions(() => http.check(request('198.51.100.1', 'pro')), 5);
    await expect(http.limiter.peek('198.51.100.1')).rejects.toMatchObject({
      code: 'ERR_TOLLGATE_LIMIT_NOT_CHOSEN',
      field: 'limit',
      message:
        'limit is chosen per request: withLimits({ limit: <value> }) gives the limiter of a value (reset and release work as they are)',
    });
    await expect(http.limiter.consume('198.51.100.1')).rejects.toMatchObject({ code: 'ERR_TOLLGATE_LIMIT_NOT_CHOSEN' });
    expect(() => http.limiter.withLimits({})).toThrow(
      expect.objectContaining({ code: 'ERR_TOLLGATE_LIMIT_NOT_CHOSEN', field: 'withLimits.limit' }),
    );
    expect(await http.limiter.withLimits({ limit: 5 }).peek('198.51.100.1')).toMatchObject({ allowed: false, limit: 5 });
    await http.limiter.reset('198.51.100.1');
    expect((await http.check(request('198.51.100.1', 'pro'))).action).toBe('pass');
  });
});

describe('on Redis', () => {
  const redisClient = useRedisClient();

  it('decides requests of different values in one script call, each by its value', async () => {
    const redis = redisClient();
    const store = new RedisStore({ client: redis, time: 'client' });
    const http = limiterOf({ windowMs: 60_000, limit: byPlan, store, prefix: 'per-request' });
    // The script is loaded on the connection first: then each batch is one call.
    await http.check(request('198.51.100.9', 'free'));
    await redis.config('RESETSTAT');
    const verdicts = await Promise.all([
      http.check(request('198.51.100.1', 'free')),
      http.check(request('198.51.100.2', 'pro')),
      http.check(request('198.51.100.3', 'banned')),
      http.check(request('198.51.100.4', 'pro')),
    ]);
    expect(verdicts.map((verdict) => [verdict.action, headersOf(verdict)['ratelimit-policy']])).toEqual([
      ['pass', '"default";q=2;w=60'],
      ['pass', '"default";q=5;w=60'],
      ['reject', '"default";q=0;w=60'],
      ['pass', '"default";q=5;w=60'],
    ]);
    const stats = await redis.info('commandstats');
    expect(driverCalls(stats)).toBe(1);
  });
});
