import { describe, expect, it } from 'vitest';
import { readUpstreamLimits } from '../src/upstream-headers.js';

const NOW = Date.UTC(2026, 5, 1, 12);
const MAX_PAUSE = 300_000;
const read = (status: number, headers: Record<string, string>) => readUpstreamLimits(status, new Headers(headers), NOW, MAX_PAUSE);

describe('readUpstreamLimits', () => {
  it('Retry-After in seconds or as an HTTP date pauses a 429 or 503', () => {
    expect(read(429, { 'retry-after': '3' })).toMatchObject({ pauseMs: 3000, pauseFrom: 'retry-after', ignored: [] });
    expect(read(503, { 'retry-after': new Date(NOW + 7000).toUTCString() })).toMatchObject({ pauseMs: 7000 });
    // A date already past: go now.
    expect(read(429, { 'retry-after': new Date(NOW - 7000).toUTCString() })).toMatchObject({ pauseMs: 0, ignored: [] });
  });

  it('Retry-After on other statuses is not a pause', () => {
    expect(read(200, { 'retry-after': '3' }).pauseMs).toBe(0);
    expect(read(301, { 'retry-after': '3' }).pauseMs).toBe(0);
  });

  it('draft-11 RateLimit: a limit with r=0 pauses for its t; the policy is read', () => {
    const limits = read(200, {
      ratelimit: '"second";r=4;t=1, "day";r=0;t=40',
      'ratelimit-policy': '"second";q=5;w=1, "day";q=1000;w=86400',
    });
    expect(limits).toMatchObject({ pauseMs: 40_000, pauseFrom: 'ratelimit' });
    expect(limits.policies).toEqual([
      { name: 'second', quota: 5, windowSeconds: 1 },
      { name: 'day', quota: 1000, windowSeconds: 86_400 },
    ]);
    expect(read(200, { ratelimit: '"second";r=3;t=1' }).pauseMs).toBe(0);
  });

  it('the older RateLimit dictionary form', () => {
    expect(read(200, { ratelimit: 'limit=10, remaining=0, reset=12' }).pauseMs).toBe(12_000);
  });

  it('X-RateLimit-Remaining 0 with X-RateLimit-Reset as epoch seconds or as seconds to wait', () => {
    expect(read(200, { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(NOW / 1000 + 20) }).pauseMs).toBe(20_000);
    expect(read(200, { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '20' }).pauseMs).toBe(20_000);
    expect(read(200, { 'x-ratelimit-remaining': '5', 'x-ratelimit-reset': '20' }).pauseMs).toBe(0);
  });

  it('the longest pause asked for wins', () => {
    expect(read(429, { 'retry-after': '2', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '9' })).toMatchObject({
      pauseMs: 9000,
      pauseFrom: 'x-ratelimit-reset',
    });
  });

  it.each([
    [{ 'retry-after': '-5' }, 'retry-after', 'negative'],
    [{ 'retry-after': 'soon' }, 'retry-after', 'malformed'],
    [{ 'retry-after': '1e9' }, 'retry-after', 'malformed'],
    [{ 'retry-after': '999999999999' }, 'retry-after', 'too-long'],
    [{ 'retry-after': new Date(NOW + 86_400_000).toUTCString() }, 'retry-after', 'too-long'],
    [{ ratelimit: '"x";r=0;t=-3' }, 'ratelimit', 'negative'],
    [{ ratelimit: '"x";r=0' }, 'ratelimit', 'malformed'],
    [{ ratelimit: '"x";r=0;t=99999999' }, 'ratelimit', 'too-long'],
    [{ ratelimit: ';;;' }, 'ratelimit', 'malformed'],
    [{ 'ratelimit-policy': '"x";w=1' }, 'ratelimit-policy', 'malformed'],
    [{ 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': 'tomorrow' }, 'x-ratelimit-reset', 'malformed'],
    [{ 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '-1' }, 'x-ratelimit-reset', 'negative'],
  ])('%j is ignored (%s: %s), never a pause', (headers, header, reason) => {
    const limits = read(429, headers);
    expect(limits.pauseMs).toBe(0);
    expect(limits.ignored).toEqual([{ header, value: Object.values(headers).at(-1), reason }]);
  });
});
