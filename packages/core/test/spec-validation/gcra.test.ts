import { describe, expect, it } from 'vitest';
import { createLimiter } from '../../src/index.js';
import { itRefusesSpecs } from '../helpers/refuses-spec.js';

const MAX_SAFE = Number.MAX_SAFE_INTEGER;

describe('a gcra spec is refused, naming the field', () => {
  itRefusesSpecs([
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
    [{ algorithm: 'gcra', rate: Number.MIN_VALUE }, 'spec.rate'],
    [{ algorithm: 'gcra', rate: 1e-300 }, 'spec.rate'],
    [{ algorithm: 'gcra', rate: 10, burst: MAX_SAFE }, 'spec.burst'],
    [{ algorithm: 'gcra', rate: 10, period: 1e300 }, 'spec.period'],
    [{ algorithm: 'gcra', rate: 10, mode: 'reserve', maxDelay: 1e300 }, 'spec.maxDelay'],
    [{ algorithm: 'gcra', rate: 10, mode: 'queue', maxDelay: '1s' }, 'spec.mode'],
    [{ algorithm: 'gcra', rate: 10, mode: 'reserve' }, 'spec.maxDelay'],
    [{ algorithm: 'gcra', rate: 10, maxDelay: '1s' }, 'spec.maxDelay'],
    [{ algorithm: 'gcra', rate: 10, mode: 'reserve', maxDelay: -1 }, 'spec.maxDelay'],
  ]);
});

describe('a shorthand spec is refused, naming the field the user wrote', () => {
  itRefusesSpecs([
    [{ qps: 0 }, 'spec.qps'],
    [{ qps: 10, burst: 0 }, 'spec.burst'],
    [{ qps: 10, perMinute: 5 }, 'spec.perMinute'],
    [{ perDay: -1 }, 'spec.perDay'],
    // A shorthand that fixes the period refuses a period it would ignore.
    [{ qps: 10, period: '1m' }, 'spec.period'],
    [{ perMinute: 10, period: '1h' }, 'spec.period'],
    [{ perSecond: 10, period: 1000 }, 'spec.period'],
    // Errors name the field the user wrote, not the one a shorthand expands to.
    [{ qps: 1e300 }, 'spec.qps'],
    [{ perHour: 1e300 }, 'spec.perHour'],
    [{ qps: Number.MIN_VALUE }, 'spec.qps'],
    [{ rate: 1e-300, period: '1s' }, 'spec.rate'],
    [{ qps: 10, mode: 'reserve' }, 'spec.maxDelay'],
  ]);
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

  it('resolves reserve mode to a borrowing allowance', () => {
    const [reserve] = createLimiter({ qps: 10, burst: 2, mode: 'reserve', maxDelay: '1s' }).limits;
    expect(reserve?.params).toEqual({ intervalUs: 100_000, burst: 2, maxDelayUs: 1_000_000 });
    expect(reserve?.algorithm.limit(reserve.params)).toBe(12);
  });
});
