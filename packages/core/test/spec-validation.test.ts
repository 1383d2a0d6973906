import { describe, expect, it } from 'vitest';
import { createLimiter, parseDuration } from '../src/index.js';
import { errorOf } from './helpers/error-of.js';

describe('invalid specs throw at construction with a code and the field', () => {
  it.each([
    [{ algorithm: 'gcra', rate: -1, period: '1s' }, 'spec.rate'],
    [{ algorithm: 'gcra', rate: 0 }, 'spec.rate'],
    [{ algorithm: 'gcra', rate: Number.NaN }, 'spec.rate'],
    [{ algorithm: 'gcra', rate: Number.POSITIVE_INFINITY }, 'spec.rate'],
    [{ algorithm: 'gcra', rate: 10, burst: 0 }, 'spec.burst'],
    [{ algorithm: 'gcra', rate: 10, burst: 2.5 }, 'spec.burst'],
    [{ algorithm: 'gcra', rate: 10, period: '1 fortnight' }, 'spec.period'],
    [{ algorithm: 'gcra', rate: 10, period: -5 }, 'spec.period'],
    [{ algorithm: 'gcra', rate: 1e9, period: 1 }, 'spec.rate'],
    [{ algorithm: 'gcra', rate: 10, brust: 5 }, 'spec.brust'],
    [{ algorithm: 'leaky-sieve', rate: 10 }, 'spec.algorithm'],
    [{ qps: 0 }, 'spec.qps'],
    [{ qps: 10, burst: 0 }, 'spec.burst'],
    [{ qps: 10, perMinute: 5 }, 'spec.perMinute'],
    [{ perDay: -1 }, 'spec.perDay'],
    [{}, 'spec.algorithm'],
    [{ algorithm: 'token-bucket', capacity: 0, refillPerSecond: 1 }, 'spec.capacity'],
    [{ algorithm: 'token-bucket', capacity: 5 }, 'spec.refillPerSecond'],
    [{ algorithm: 'token-bucket', capacity: 5, refillPerSecond: -2 }, 'spec.refillPerSecond'],
    [{ algorithm: 'token-bucket', capacity: 5, refillPerSecond: 1, refillAmount: 2 }, 'spec.refillPerSecond'],
    [{ algorithm: 'fixed-window', limit: 10 }, 'spec.window'],
    [{ algorithm: 'fixed-window', limit: -3, window: '1m' }, 'spec.limit'],
    [{ qps: 1, name: 'has space' }, 'spec.name'],
    // A shorthand that fixes the period refuses a period it would ignore.
    [{ qps: 10, period: '1m' }, 'spec.period'],
    [{ perMinute: 10, period: '1h' }, 'spec.period'],
    [{ perSecond: 10, period: 1000 }, 'spec.period'],
    // Errors name the field the user wrote, not the one a shorthand expands to.
    [{ qps: 1e300 }, 'spec.qps'],
    [{ perHour: 1e300 }, 'spec.perHour'],
    [{ qps: Number.MIN_VALUE }, 'spec.qps'],
    [{ rate: 1e-300, period: '1s' }, 'spec.rate'],
    [{ limits: [{ perDay: 1e-300 }] }, 'limits[0].perDay'],
    [{ limits: [] }, 'limits'],
    [{ limits: [{ qps: 1 }, { perMinute: -1 }] }, 'limits[1].perMinute'],
    [
      {
        limits: [
          { qps: 1, name: 'a' },
          { perMinute: 1, name: 'a' },
        ],
      },
      'limits[1].name',
    ],
  ])('%j → %s', (spec, field) => {
    const error = errorOf(() => createLimiter(spec as never));
    expect(error.code).toBe('ERR_TOLLGATE_INVALID_SPEC');
    expect(error.field).toBe(field);
    expect(error.message).toContain(field);
  });

  it('rejects a bad prefix and a bad store as options', () => {
    expect(errorOf(() => createLimiter({ qps: 1, prefix: 'a{b}' })).field).toBe('prefix');
    expect(errorOf(() => createLimiter({ qps: 1, store: {} as never })).field).toBe('store');
  });
});

describe('invalid costs and keys reject the call with a coded error', () => {
  const limiter = createLimiter({ qps: 10, burst: 5 });

  it.each([0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, '2'])('cost %s', async (cost) => {
    await expect(limiter.consume('k', { cost: cost as number })).rejects.toMatchObject({
      code: 'ERR_TOLLGATE_INVALID_COST',
      field: 'cost',
    });
  });

  it.each(['', undefined, 42])('key %j', async (key) => {
    await expect(limiter.consume(key as string)).rejects.toMatchObject({ code: 'ERR_TOLLGATE_INVALID_KEY', field: 'key' });
  });

  // Costs a store would happily charge (1.5, '2') if the check let them through: each must leave the key untouched.
  it.each([0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, '2'])('a rejected cost %s consumed nothing', async (cost) => {
    const key = `fresh-${String(cost)}`;
    await limiter.consume(key, { cost: cost as number }).catch(() => {});
    expect(await limiter.peek(key)).toMatchObject({ remaining: 4, resetAfterMs: 100 });
  });

  it.each([0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, '2'])('a rejected refund of %s gave nothing back', async (cost) => {
    const now = Date.UTC(2026, 5, 1, 12);
    const limiter = createLimiter({ qps: 10, burst: 5, clock: () => now });
    const key = `charged-${String(cost)}`;
    await limiter.consume(key, { cost: 2 });
    await limiter.refund(key, { cost: cost as number }).catch(() => {});
    expect(await limiter.peek(key)).toMatchObject({ remaining: 2, resetAfterMs: 300 });
  });
});

describe('numbers no arithmetic can follow are refused, naming the field', () => {
  const MAX_SAFE = Number.MAX_SAFE_INTEGER;
  it.each([
    [{ algorithm: 'gcra', rate: Number.MIN_VALUE }, 'spec.rate'],
    [{ algorithm: 'gcra', rate: 1e-300 }, 'spec.rate'],
    [{ algorithm: 'gcra', rate: 10, burst: MAX_SAFE }, 'spec.burst'],
    [{ algorithm: 'gcra', rate: 10, period: 1e300 }, 'spec.period'],
    [{ algorithm: 'gcra', rate: 10, mode: 'reserve', maxDelay: 1e300 }, 'spec.maxDelay'],
    [{ algorithm: 'token-bucket', capacity: 5, refillPerSecond: Number.MIN_VALUE }, 'spec.refillPerSecond'],
    [{ algorithm: 'token-bucket', capacity: 5, refillPerSecond: 1e300 }, 'spec.refillPerSecond'],
    [{ algorithm: 'token-bucket', capacity: MAX_SAFE, refillPerSecond: 1 }, 'spec.capacity'],
    [{ algorithm: 'token-bucket', capacity: 5, refillAmount: 1e-300, refillInterval: '1s' }, 'spec.refillAmount'],
    [{ algorithm: 'token-bucket', capacity: 5, refillAmount: 1, refillInterval: 1e300 }, 'spec.refillInterval'],
    [{ algorithm: 'fixed-window', limit: 5, window: 1e300 }, 'spec.window'],
    [{ algorithm: 'sliding-window-counter', limit: 5, window: 1e300 }, 'spec.window'],
    [{ algorithm: 'sliding-window-log', limit: 5, window: 1e300 }, 'spec.window'],
    [{ algorithm: 'sliding-window-log', limit: 1e9, window: '1s' }, 'spec.limit'],
    [{ algorithm: 'warm-up', rate: Number.MIN_VALUE, warmup: '1s' }, 'spec.rate'],
    [{ algorithm: 'warm-up', rate: 10, warmup: 1e300 }, 'spec.warmup'],
    [{ algorithm: 'warm-up', rate: 10, warmup: '1s', coldFactor: 1e300 }, 'spec.coldFactor'],
    [{ algorithm: 'leaky-bucket', rate: 1e-300 }, 'spec.rate'],
    [{ algorithm: 'leaky-bucket', rate: 10, burst: MAX_SAFE }, 'spec.burst'],
    [{ algorithm: 'leaky-bucket', rate: 10, mode: 'shaping', maxDelay: 1e300 }, 'spec.maxDelay'],
    [{ algorithm: 'concurrency', limit: 5, leaseTtl: 1e300 }, 'spec.leaseTtl'],
  ])('%j → %s', (spec, field) => {
    const error = errorOf(() => createLimiter(spec as never));
    expect(error).toMatchObject({ code: 'ERR_TOLLGATE_INVALID_SPEC', field });
    expect(error.message).toContain(field);
  });
});

describe('durations', () => {
  it.each([
    [250, 250],
    ['500ms', 500],
    ['1s', 1000],
    ['1.5s', 1500],
    ['1m', 60_000],
    ['1h', 3_600_000],
    ['1d', 86_400_000],
    ['2 m', 120_000],
  ])('%j is %d ms', (input, ms) => {
    expect(parseDuration(input, 'window')).toBe(ms);
  });

  it.each(['0s', '1w', '', 'soon', 0, -1, 0.5, Number.NaN])('%j is refused', (input) => {
    expect(() => parseDuration(input, 'window')).toThrow(/window/);
  });
});

describe('shorthands resolve to GCRA', () => {
  it('perMinute bursts to the per-minute count by default, and burst overrides it', () => {
    const [minute] = createLimiter({ perMinute: 300 }).limits;
    expect(minute).toMatchObject({ name: 'default', params: { burst: 300, intervalUs: 200_000 } });
    const [qps] = createLimiter({ qps: 10, burst: 5 }).limits;
    expect(qps?.algorithm.name).toBe('gcra');
    expect(qps?.params).toEqual({ burst: 5, intervalUs: 100_000, maxDelayUs: 0 });
    const [rate] = createLimiter({ rate: 100, period: '1m' }).limits;
    expect(rate?.params).toEqual({ burst: 100, intervalUs: 600_000, maxDelayUs: 0 });
  });
});

describe('default names of the limits of a multi-limit rule', () => {
  const namesOf = (limits: unknown[]) => createLimiter({ limits } as never).limits.map((limit) => limit.name);

  it('name each limit after its window, in the largest whole unit', () => {
    expect(namesOf([{ qps: 10, burst: 10 }, { perDay: 10_000 }])).toEqual(['1s', '1d']);
    expect(namesOf([{ algorithm: 'fixed-window', limit: 5, window: '15m' }, { perHour: 100 }, { qps: 10, burst: 5 }])).toEqual([
      '15m',
      '1h',
      '500ms',
    ]);
    expect(
      namesOf([
        { algorithm: 'sliding-window-log', limit: 5, window: 90_000 },
        { rate: 3, period: '1s', burst: 1 },
      ]),
    ).toEqual(['90s', '333ms']);
  });

  it('calls a concurrency limit concurrency, having no window', () => {
    expect(namesOf([{ algorithm: 'concurrency', limit: 2, leaseTtl: '1m' }, { perMinute: 60 }])).toEqual(['concurrency', '1m']);
  });

  it('keeps names unique within the rule, given names included', () => {
    expect(namesOf([{ perSecond: 5 }, { qps: 1, burst: 1 }, { perSecond: 2 }])).toEqual(['1s', '1s-2', '1s-3']);
    expect(namesOf([{ perSecond: 5 }, { name: '1s', perMinute: 5 }])).toEqual(['1s-2', '1s']);
  });

  it('leaves a single limit named default', () => {
    expect(createLimiter({ perSecond: 5 }).limits[0]?.name).toBe('default');
  });
});
