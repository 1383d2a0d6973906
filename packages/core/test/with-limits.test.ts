import { describe, expect, it } from 'vitest';
import { createLimiter, type LimiterOptions, MemoryStore, RedisStore, type Store } from '../src/index.js';
import { errorOf } from './helpers/error-of.js';
import { useRedisClient } from './helpers/per-file-servers.js';

const now = Date.UTC(2026, 5, 1, 12);
const clock = () => now;

const redisClient = useRedisClient();

let prefixes = 0;
const backends: [string, () => Store][] = [
  ['memory', () => new MemoryStore({ clock })],
  ['redis', () => new RedisStore({ client: redisClient(), time: 'client' })],
];

describe.each(backends)('withLimits, on %s', (_name, storeOf) => {
  const options = (): LimiterOptions => ({ store: storeOf(), clock, prefix: `with-limits-${++prefixes}`, denyCache: false });

  it('keeps the count when the limit changes: an upgrade admits what is left of the new limit, a downgrade nothing above it', async () => {
    const limiter = createLimiter({ algorithm: 'fixed-window', limit: 5, window: '1m', ...options() });
    for (let i = 0; i < 3; i++) expect((await limiter.consume('ann')).allowed).toBe(true);
    const pro = limiter.withLimits({ limit: 10 });
    expect(await pro.consume('ann')).toMatchObject({ allowed: true, limit: 10, remaining: 6 });
    const lowered = limiter.withLimits({ limit: 2 });
    // Four counted: above the lowered limit, which admits nothing and reports nothing left (never below 0).
    expect(await lowered.consume('ann')).toMatchObject({ allowed: false, limit: 2, remaining: 0, retryAfterMs: 60_000 });
    expect(await limiter.consume('ann')).toMatchObject({ allowed: true, limit: 5, remaining: 0 });
    expect((await limiter.consume('ann')).allowed).toBe(false);
  });

  it('a limit of 0 chosen for a client refuses it, and charges nothing', async () => {
    const limiter = createLimiter({ algorithm: 'token-bucket', capacity: 3, refillPerSecond: 1, ...options() });
    expect(await limiter.withLimits({ capacity: 0 }).consume('ann')).toMatchObject({
      allowed: false,
      retryAfterMs: Number.POSITIVE_INFINITY,
    });
    expect(await limiter.consume('ann')).toMatchObject({ allowed: true, remaining: 2 });
  });

  it('chooses values by limit name in a multi-limit rule, keeping the names the limits had (and so their state)', async () => {
    const limiter = createLimiter({ limits: [{ qps: 10, burst: 5 }, { perDay: 1000 }], ...options() });
    expect(limiter.limits.map((limit) => limit.name)).toEqual(['1s', '1d']);
    await limiter.consume('ann', { cost: 4 });
    // Another burst keeps the name `1s`, and the 4 units taken.
    const wider = limiter.withLimits({ limits: { '1s': { burst: 20 } } });
    expect(wider.limits.map((limit) => limit.name)).toEqual(['1s', '1d']);
    const decision = await wider.consume('ann');
    expect(decision.limits.map((part) => [part.name, part.limit, part.remaining])).toEqual([
      ['1s', 20, 15],
      ['1d', 1000, 995],
    ]);
    expect(decision.limits[0]!.policy).toMatchObject({ quota: 20, windowMs: 2000 });
  });
});

describe('withLimits', () => {
  it('gives the same limiter for the same values, and chooses on the rule it was given, not on a variant', () => {
    const limiter = createLimiter({ perMinute: 10 });
    const pro = limiter.withLimits({ perMinute: 100 });
    expect(limiter.withLimits({ perMinute: 100 })).toBe(pro);
    expect(pro.withLimits({ perMinute: 100 })).toBe(pro);
    expect(pro.withLimits({ burst: 3 }).limits[0]!.params).toEqual(limiter.withLimits({ burst: 3 }).limits[0]!.params);
    expect(pro.withLimits({ burst: 3 }).limits[0]).toMatchObject({ params: { burst: 3, intervalUs: 6_000_000 } });
  });

  it('keeps the limiters of 256 distinct values; one built again keeps its state', async () => {
    const limiter = createLimiter({ algorithm: 'fixed-window', limit: 5, window: '1m', store: new MemoryStore({ clock }), clock });
    const first = limiter.withLimits({ limit: 1000 });
    await first.consume('ann', { cost: 7 });
    for (let limit = 1; limit <= 255; limit++) expect(limiter.withLimits({ limit })).toBe(limiter.withLimits({ limit }));
    expect(limiter.withLimits({ limit: 1000 })).toBe(first);
    limiter.withLimits({ limit: 256 });
    const again = limiter.withLimits({ limit: 1000 });
    expect(again).not.toBe(first);
    expect(await again.consume('ann')).toMatchObject({ remaining: 992 });
  });

  it('refuses what is not a count or rate of the rule, naming it', () => {
    const limiter = createLimiter({ algorithm: 'fixed-window', limit: 5, window: '1m' });
    const cases: [unknown, string, string][] = [
      [{ limit: -1 }, 'withLimits.limit', 'must be a whole number >= 0'],
      [{ limit: '10' }, 'withLimits.limit', 'must be a whole number >= 0'],
      [{ window: 1000 }, 'withLimits.window', 'is not an option here'],
      [{ limt: 10 }, 'withLimits.limt', 'did you mean limit?'],
      [{ limits: { hourly: { limit: 1 } } }, 'withLimits.limits.hourly', 'is not an option here: takes default'],
      [7, 'withLimits', 'must be an object'],
    ];
    for (const [values, field, message] of cases) {
      const error = errorOf(() => limiter.withLimits(values as never));
      expect(error, JSON.stringify(values)).toMatchObject({ code: 'ERR_TOLLGATE_INVALID_SPEC', field });
      expect(error.message).toContain(message);
    }
    const several = createLimiter({
      limits: [
        { name: 'second', qps: 1 },
        { name: 'day', perDay: 100 },
      ],
    });
    expect(errorOf(() => several.withLimits({ burst: 2 }))).toMatchObject({ field: 'withLimits' });
    expect(errorOf(() => several.withLimits({ limits: { day: { perDay: 0 } } }))).toMatchObject({ field: 'withLimits.limits.day.perDay' });
  });

  it("answers a failed store with the fallback's share of the values chosen", async () => {
    const broken: Store = { execute: () => Promise.reject(new Error('down')) };
    const limiter = createLimiter({
      algorithm: 'fixed-window',
      limit: 4,
      window: '1m',
      store: broken,
      clock,
      breaker: false,
      onStoreError: { fallback: { share: 0.5 } },
    });
    const pro = limiter.withLimits({ limit: 10 });
    const decisions = [];
    for (let i = 0; i < 6; i++) decisions.push(await pro.consume('ann'));
    expect(decisions.map((d) => d.allowed)).toEqual([true, true, true, true, true, false]);
    expect(decisions[0]).toMatchObject({ source: 'fallback', limit: 5 });
    // The fallback keeps one state per client whatever the values, as the store does.
    expect(await limiter.withLimits({ limit: 12 }).consume('ann')).toMatchObject({ source: 'fallback', limit: 6, remaining: 0 });
  });

  it('serves a denial from the deny cache only to the limiter whose values denied it', async () => {
    const store = new RedisStore({ client: redisClient(), time: 'client' });
    const limiter = createLimiter({ algorithm: 'fixed-window', limit: 1, window: '1m', store, clock, prefix: 'deny-cache-values' });
    expect((await limiter.consume('ann')).allowed).toBe(true);
    expect(await limiter.consume('ann')).toMatchObject({ allowed: false, source: 'store' });
    expect(await limiter.consume('ann')).toMatchObject({ allowed: false, source: 'cache' });
    expect(await limiter.withLimits({ limit: 3 }).consume('ann')).toMatchObject({ allowed: true, source: 'store' });
  });
});
