import { parseList } from 'structured-headers';
import { describe, expect, it } from 'vitest';
import { createHttpLimiter, type HttpVerdict, type RuleSpec } from '../../src/index.js';

// Every header Tollgate emits, parsed with an independent RFC 9651 parser and checked against
// draft-ietf-httpapi-ratelimit-headers-11, for every algorithm, on 200s, shaped 200s and 429s.

const RULES: [string, RuleSpec][] = [
  ['gcra', { qps: 2, burst: 3 }],
  ['gcra (reserve)', { algorithm: 'gcra', rate: 2, burst: 2, mode: 'reserve', maxDelay: '1500ms' }],
  ['token-bucket', { algorithm: 'token-bucket', capacity: 3, refillPerSecond: 0.5 }],
  ['token-bucket (reserve)', { algorithm: 'token-bucket', capacity: 2, refillPerSecond: 1, mode: 'reserve', maxDelay: '2s' }],
  ['fixed-window', { algorithm: 'fixed-window', limit: 3, window: '1m' }],
  ['fixed-window (forever)', { algorithm: 'fixed-window', limit: 3, window: 'forever' }],
  ['fixed-window (limit 0)', { algorithm: 'fixed-window', limit: 0, window: '1m' }],
  ['sliding-window-log', { algorithm: 'sliding-window-log', limit: 3, window: '10s' }],
  ['sliding-window-counter', { algorithm: 'sliding-window-counter', limit: 3, window: '100s' }],
  ['warm-up', { algorithm: 'warm-up', rate: 2, warmup: '3s' }],
  ['leaky-bucket', { algorithm: 'leaky-bucket', rate: 1, burst: 3 }],
  ['leaky-bucket (shaping)', { algorithm: 'leaky-bucket', mode: 'shaping', rate: 2, maxDelay: '2s' }],
  ['concurrency', { algorithm: 'concurrency', limit: 2, leaseTtl: '2m' }],
  [
    'two limits',
    {
      limits: [
        { name: 'second', qps: 1, burst: 2 },
        { name: 'minute', algorithm: 'fixed-window', limit: 5, window: '1m' },
      ],
    },
  ],
  [
    'two units',
    {
      limits: [
        { name: 'rpm', perMinute: 4 },
        { name: 'tpm', algorithm: 'fixed-window', limit: 50, window: '1m', unit: 'tokens' },
      ],
    },
  ],
];

/** Rules under which a spent unit never comes back. */
const NEVER_BACK = ['fixed-window (forever)', 'fixed-window (limit 0)'];

/** Requests at one instant, then after a pause, and so on: ms to wait before each group, and its size. */
const SCENARIO: [number, number][] = [
  [0, 6],
  [700, 3],
  [2500, 2],
  [1000, 4],
];

interface Seen {
  verdict: Exclude<HttpVerdict, { action: 'skip' }>;
  /** Requests sent before this one, and the ms elapsed when it was sent. */
  index: number;
  elapsedMs: number;
}

/** Plays the scenario (its first `limit` requests) on a fresh limiter; returns the verdicts and the limiter. */
async function play(rule: RuleSpec, limit = Number.POSITIVE_INFINITY) {
  let now = Date.UTC(2026, 5, 1, 12);
  const start = now;
  const http = createHttpLimiter({ ...rule, clock: () => now });
  const check = async () => {
    const verdict = await http.check({ ip: '203.0.113.7', method: 'GET', path: '/', headers: {}, raw: {} });
    if (verdict.action === 'skip') throw new Error('unexpected skip');
    return verdict;
  };
  const seen: Seen[] = [];
  for (const [waitMs, count] of SCENARIO) {
    if (seen.length >= limit) break;
    now += waitMs;
    for (let i = 0; i < count && seen.length < limit; i++)
      seen.push({ verdict: await check(), index: seen.length, elapsedMs: now - start });
  }
  return { seen, check, advance: (ms: number) => (now += ms) };
}

function header(verdict: Seen['verdict'], name: string): string | undefined {
  return verdict.headers.find(([field]) => field.toLowerCase() === name.toLowerCase())?.[1];
}

function paramsOf(field: string): [string, Map<string, unknown>][] {
  return parseList(field).map(([item, params]) => {
    expect(typeof item, `${field}: every member is a String`).toBe('string');
    return [item as string, params as Map<string, unknown>];
  });
}

const isNonNegativeInteger = (value: unknown) => typeof value === 'number' && Number.isInteger(value) && value >= 0;

describe.each(RULES)('%s', (label, rule) => {
  it('every RateLimit-Policy and RateLimit field parses, and agrees with -11 and with Retry-After', async () => {
    const { seen } = await play(rule);
    for (const { verdict, index } of seen) {
      const where = `${label}, request ${index} (${verdict.action})`;
      const policies = new Map(paramsOf(header(verdict, 'RateLimit-Policy')!));
      for (const [name, params] of policies) {
        expect(isNonNegativeInteger(params.get('q')), `${where}: ${name} q`).toBe(true);
        if (label === 'concurrency') {
          // §3.1.2: quota in concurrent requests, and no time window a client would read as a rate.
          expect(params.get('qu'), where).toBe('concurrent-requests');
          expect(params.has('w'), where).toBe(false);
        } else if (label.includes('forever')) {
          // §2.1: `w` is optional, and may not be 0: a count that never resets has none.
          expect(params.has('w'), where).toBe(false);
        } else {
          expect(Number.isInteger(params.get('w')) && (params.get('w') as number) >= 1, `${where}: ${name} w`).toBe(true);
          // A limit counting tokens names its unit, an unregistered quota unit; requests are the default.
          expect(params.get('qu'), `${where}: ${name} qu`).toBe(name === 'tpm' ? 'tokens' : undefined);
        }
      }
      const limits = paramsOf(header(verdict, 'RateLimit')!);
      expect(
        limits.map(([name]) => name),
        where,
      ).toEqual([...policies.keys()]);
      const retryAfter = header(verdict, 'Retry-After');
      if (retryAfter !== undefined) expect(retryAfter, where).toMatch(/^\d+$/);
      for (const [name, params] of limits) {
        const r = params.get('r');
        expect(isNonNegativeInteger(r), `${where}: ${name} r`).toBe(true);
        // r and q count the same units: available quota never above the policy's quota.
        expect(r as number, `${where}: ${name} r <= q`).toBeLessThanOrEqual(policies.get(name)!.get('q') as number);
        const t = params.get('t');
        if (t === undefined) continue;
        expect(isNonNegativeInteger(t), `${where}: ${name} t`).toBe(true);
        // §6: Retry-After never points earlier than the end of the effective window.
        if (retryAfter !== undefined) expect(t as number, `${where}: ${name} t <= Retry-After`).toBeLessThanOrEqual(Number(retryAfter));
      }
    }
    expect(
      seen.some(({ verdict }) => verdict.action === 'reject'),
      'the scenario reaches a 429',
    ).toBe(true);
    if (label.includes('reserve') || label.includes('shaping')) {
      expect(
        seen.some(({ verdict }) => verdict.action === 'pass' && header(verdict, 'Retry-After') !== undefined),
        'the scenario reaches a shaped 200',
      ).toBe(true);
    }
  });

  it('an exhausted limit says t no later than the wait until a unit is back', async () => {
    const { seen } = await play(rule);
    let probed = 0;
    for (const { verdict, index } of seen) {
      for (const [name, params] of paramsOf(header(verdict, 'RateLimit')!)) {
        const t = params.get('t') as number | undefined;
        if (params.get('r') !== 0 || t === undefined || t === 0) continue;
        // t is whole seconds rounded up: one second less, the unit must not be back yet.
        const replay = await play(rule, index + 1);
        replay.advance((t - 1) * 1000);
        const probe = await replay.check();
        expect(probe.action, `${label}: request ${index} said ${name} r=0;t=${t}`).toBe('reject');
        probed++;
      }
    }
    if (NEVER_BACK.includes(label)) {
      // Nothing ever comes back: an exhausted limit says no t, and a 429 no Retry-After.
      for (const { verdict } of seen) {
        expect(header(verdict, 'RateLimit'), label).not.toMatch(/r=0;t=/);
        if (verdict.action === 'reject') expect(header(verdict, 'Retry-After'), label).toBeUndefined();
      }
    } else if (label !== 'concurrency') expect(probed).toBeGreaterThan(0);
  });
});
