import { VirtualClock } from '@tollgate/testing';
import { describe, expect, it } from 'vitest';
import { createHttpLimiter, type HttpRateLimitOptions, type HttpRequestInfo, type HttpVerdict } from '../../src/index.js';

const START = Date.UTC(2026, 0, 1);

function request(ip = '203.0.113.7'): HttpRequestInfo {
  return { ip, method: 'GET', path: '/', headers: {}, raw: {} };
}

function headersOf(verdict: HttpVerdict): Record<string, string> {
  return verdict.action === 'skip' ? {} : Object.fromEntries(verdict.headers);
}

function limiterOf(options: HttpRateLimitOptions) {
  const clock = new VirtualClock(START);
  return { http: createHttpLimiter({ ...options, clock: clock.now }), clock };
}

describe('limit: 0', () => {
  it.each([
    ['limit', { windowMs: 60_000, limit: 0 }],
    ['max', { windowMs: 60_000, max: 0 }],
    ['fixed-window', { algorithm: 'fixed-window', limit: 0, window: '1m' }],
  ] as [string, HttpRateLimitOptions][])('{ %s: 0 } refuses every request, from the first, with no Retry-After', async (_name, options) => {
    const { http, clock } = limiterOf({ ...options, headers: 'draft+legacy' });
    for (let i = 0; i < 3; i++) {
      const verdict = await http.check(request());
      if (verdict.action !== 'reject') throw new Error(`request ${i}: expected a rejection`);
      expect(verdict.status).toBe(429);
      expect(verdict.decision).toMatchObject({ allowed: false, limit: 0, remaining: 0, retryAfterMs: Number.POSITIVE_INFINITY });
      expect(verdict.body).toBe('Too many requests: the limit admits no more.');
      // Waiting never helps: no Retry-After, and no t (no unit ever comes back).
      expect(headersOf(verdict)).toEqual({
        'ratelimit-policy': '"default";q=0;w=60',
        ratelimit: '"default";r=0',
        'x-ratelimit-limit': '0',
        'x-ratelimit-remaining': '0',
        'x-ratelimit-reset': String(Math.ceil((clock.now() + 60_000) / 1000)),
        'cache-control': 'no-store',
      });
      clock.advance(60_000);
    }
  });

  it('answers null for retryAfter in a JSON body', async () => {
    const { http } = limiterOf({ windowMs: 1000, limit: 0, responseType: 'json' });
    const verdict = await http.check(request());
    expect(verdict.action === 'reject' && verdict.payload).toEqual({
      error: 'Too Many Requests',
      message: 'Too many requests: the limit admits no more.',
      limit: 'default',
      retryAfter: null,
    });
  });
});

describe("window: 'forever'", () => {
  it('advertises no window and no reset, and refuses for good once spent', async () => {
    const { http, clock } = limiterOf({ algorithm: 'fixed-window', limit: 2, window: 'forever', headers: 'draft+legacy' });
    const first = await http.check(request());
    expect(first.action).toBe('pass');
    expect(headersOf(first)).toEqual({
      'ratelimit-policy': '"default";q=2',
      ratelimit: '"default";r=1',
      'x-ratelimit-limit': '2',
      'x-ratelimit-remaining': '1',
    });
    expect((await http.check(request())).action).toBe('pass');
    clock.advance(365 * 86_400_000);
    const spent = await http.check(request());
    if (spent.action !== 'reject') throw new Error('expected a rejection');
    expect(spent.decision).toMatchObject({ remaining: 0, resetAfterMs: Number.POSITIVE_INFINITY, retryAfterMs: Number.POSITIVE_INFINITY });
    expect(headersOf(spent)).toEqual({
      'ratelimit-policy': '"default";q=2',
      ratelimit: '"default";r=0',
      'x-ratelimit-limit': '2',
      'x-ratelimit-remaining': '0',
      'cache-control': 'no-store',
    });
    await http.limiter.reset('ip:203.0.113.7');
    expect((await http.check(request())).action).toBe('pass');
  });

  it('names an unnamed lifetime limit of a multi-limit rule `forever`', async () => {
    const { http } = limiterOf({
      limits: [{ perMinute: 10 }, { algorithm: 'fixed-window', limit: 100, window: 'forever' }],
    });
    expect(headersOf(await http.check(request()))).toMatchObject({
      'ratelimit-policy': '"1m";q=10;w=60, "forever";q=100',
      ratelimit: '"1m";r=9;t=6, "forever";r=99',
    });
  });
});
