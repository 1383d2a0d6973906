import { describe, expect, it } from 'vitest';
import { goDurationMs, readBudgets, rfc3339Ms } from '../src/token-budgets.js';
import { readUpstreamLimits } from '../src/upstream-headers.js';

const NOW = Date.UTC(2026, 5, 1, 12);
const read = (headers: Record<string, string>, headroom = {}) => readUpstreamLimits(200, new Headers(headers), NOW, 300_000, headroom);

describe('OpenAI-style budgets (x-ratelimit-*-requests, x-ratelimit-*-tokens)', () => {
  const openai = {
    'x-ratelimit-limit-requests': '500',
    'x-ratelimit-remaining-requests': '499',
    'x-ratelimit-reset-requests': '120ms',
    'x-ratelimit-limit-tokens': '90000',
    'x-ratelimit-remaining-tokens': '0',
    'x-ratelimit-reset-tokens': '6m0s',
  };

  it('reads both budgets; the spent token budget pauses until its reset', () => {
    const limits = read(openai);
    expect(limits.budgets).toEqual([
      { unit: 'requests', limit: 500, remaining: 499, resetMs: 120, resetHeader: 'x-ratelimit-reset-requests' },
      { unit: 'tokens', limit: 90_000, remaining: 0, resetMs: 360_000, resetHeader: 'x-ratelimit-reset-tokens' },
    ]);
    // 6 minutes is past the default maxPause of 5: reported, not followed.
    expect(limits).toMatchObject({ pauseMs: 0, ignored: [{ header: 'x-ratelimit-reset-tokens', reason: 'too-long' }] });
    expect(read({ ...openai, 'x-ratelimit-reset-tokens': '4m30.5s' })).toMatchObject({
      pauseMs: 270_500,
      pauseFrom: 'x-ratelimit-reset-tokens',
    });
  });

  it('a budget above the headroom does not pause; at or below it pauses', () => {
    const headers = { 'x-ratelimit-remaining-tokens': '800', 'x-ratelimit-reset-tokens': '1.5s' };
    expect(read(headers).pauseMs).toBe(0);
    expect(read(headers, { tokens: 799 }).pauseMs).toBe(0);
    expect(read(headers, { tokens: 800 })).toMatchObject({ pauseMs: 1500, pauseFrom: 'x-ratelimit-reset-tokens' });
    // A headroom of another unit says nothing of tokens.
    expect(read(headers, { requests: 5000 }).pauseMs).toBe(0);
  });

  it('the longest of the spent budgets wins', () => {
    const limits = read({
      'x-ratelimit-remaining-requests': '0',
      'x-ratelimit-reset-requests': '2s',
      'x-ratelimit-remaining-tokens': '0',
      'x-ratelimit-reset-tokens': '20ms',
    });
    expect(limits).toMatchObject({ pauseMs: 2000, pauseFrom: 'x-ratelimit-reset-requests' });
  });
});

describe('Anthropic-style budgets (anthropic-ratelimit-<unit>-*)', () => {
  it('reads every unit; a spent one pauses until its RFC 3339 reset', () => {
    const limits = read({
      'anthropic-ratelimit-requests-remaining': '49',
      'anthropic-ratelimit-requests-reset': '2026-06-01T12:00:10Z',
      'anthropic-ratelimit-input-tokens-limit': '40000',
      'anthropic-ratelimit-input-tokens-remaining': '0',
      'anthropic-ratelimit-input-tokens-reset': '2026-06-01T12:00:42Z',
      'anthropic-ratelimit-output-tokens-remaining': '8000',
      'anthropic-ratelimit-output-tokens-reset': '2026-06-01T14:00:00+02:00',
    });
    expect(limits.budgets.map(({ unit, remaining, resetMs }) => ({ unit, remaining, resetMs }))).toEqual([
      { unit: 'requests', remaining: 49, resetMs: 10_000 },
      { unit: 'input-tokens', remaining: 0, resetMs: 42_000 },
      { unit: 'output-tokens', remaining: 8000, resetMs: 0 },
    ]);
    expect(limits).toMatchObject({ pauseMs: 42_000, pauseFrom: 'anthropic-ratelimit-input-tokens-reset', ignored: [] });
  });
});

describe('budget headers that cannot be followed', () => {
  it.each([
    [{ 'x-ratelimit-remaining-tokens': 'lots' }, 'x-ratelimit-remaining-tokens', 'malformed'],
    [{ 'x-ratelimit-remaining-tokens': '-4' }, 'x-ratelimit-remaining-tokens', 'negative'],
    [{ 'x-ratelimit-remaining-tokens': '0', 'x-ratelimit-reset-tokens': 'soon' }, 'x-ratelimit-reset-tokens', 'malformed'],
    [{ 'x-ratelimit-remaining-tokens': '0', 'x-ratelimit-reset-tokens': '6m0sx' }, 'x-ratelimit-reset-tokens', 'malformed'],
    [{ 'x-ratelimit-remaining-tokens': '0', 'x-ratelimit-reset-tokens': '-1s' }, 'x-ratelimit-reset-tokens', 'negative'],
    [
      { 'anthropic-ratelimit-tokens-remaining': '0', 'anthropic-ratelimit-tokens-reset': '12:00:30' },
      'anthropic-ratelimit-tokens-reset',
      'malformed',
    ],
    [
      { 'anthropic-ratelimit-tokens-remaining': '0', 'anthropic-ratelimit-tokens-reset': '2026-06-01T12:00:30' },
      'anthropic-ratelimit-tokens-reset',
      'malformed',
    ],
    [
      { 'anthropic-ratelimit-tokens-remaining': '0', 'anthropic-ratelimit-tokens-reset': '2026-06-02T12:00:00Z' },
      'anthropic-ratelimit-tokens-reset',
      'too-long',
    ],
  ])('%j is ignored (%s: %s), never a pause', (headers, header, reason) => {
    const limits = read(headers);
    expect(limits.pauseMs).toBe(0);
    expect(limits.ignored).toEqual([{ header, value: Object.values(headers).at(-1), reason }]);
  });

  it('a spent budget without a reset is read but pauses nothing', () => {
    const limits = read({ 'x-ratelimit-remaining-tokens': '0' });
    expect(limits.budgets).toEqual([
      { unit: 'tokens', limit: undefined, remaining: 0, resetMs: undefined, resetHeader: 'x-ratelimit-reset-tokens' },
    ]);
    expect(limits.pauseMs).toBe(0);
  });
});

describe('the reset forms', () => {
  it.each([
    ['6m0s', 360_000],
    ['1s', 1000],
    ['20ms', 20],
    ['1h2m3s', 3_723_000],
    ['0.25s', 250],
    ['1.5', 1500],
    ['500us', 1],
    ['0s', 0],
  ])('duration %s is %i ms', (value, ms) => {
    expect(goDurationMs(value)).toBe(ms);
  });

  it('an RFC 3339 time already past is 0 ms away; fractions and offsets are read', () => {
    expect(rfc3339Ms('2026-06-01T11:59:00Z', NOW)).toBe(0);
    expect(rfc3339Ms('2026-06-01T12:00:01.250Z', NOW)).toBe(1250);
    expect(rfc3339Ms('2026-06-01T08:00:05-04:00', NOW)).toBe(5000);
  });

  it('headers absent: no budgets', () => {
    expect(readBudgets(new Headers({ 'x-ratelimit-limit-tokens': '9000' }), NOW)).toEqual({ budgets: [], ignored: [] });
  });
});
