import { describe, expect, it } from 'vitest';
import { createConcurrencyLimiter, createLimiter } from '../src/index.js';
import { errorOf } from './helpers/error-of.js';

describe('warm-up and reserve-mode specs are validated with the field named', () => {
  it.each([
    [{ algorithm: 'warm-up', rate: 2 }, 'spec.warmup'],
    [{ algorithm: 'warm-up', rate: 2, warmup: '0s' }, 'spec.warmup'],
    [{ algorithm: 'warm-up', rate: 0, warmup: '3s' }, 'spec.rate'],
    [{ algorithm: 'warm-up', rate: 1e9, period: 1, warmup: '3s' }, 'spec.rate'],
    [{ algorithm: 'warm-up', rate: 2, warmup: '3s', coldFactor: 0.5 }, 'spec.coldFactor'],
    [{ algorithm: 'warm-up', rate: 2, warmup: '3s', coldFactor: '3' }, 'spec.coldFactor'],
    [{ algorithm: 'warm-up', rate: 2, warmup: '3s', coldFactor: Number.POSITIVE_INFINITY }, 'spec.coldFactor'],
    [{ algorithm: 'warm-up', rate: 2, warmup: '3s', burst: 4 }, 'spec.burst'],
    [{ algorithm: 'gcra', rate: 10, mode: 'queue', maxDelay: '1s' }, 'spec.mode'],
    [{ algorithm: 'gcra', rate: 10, mode: 'reserve' }, 'spec.maxDelay'],
    [{ algorithm: 'gcra', rate: 10, maxDelay: '1s' }, 'spec.maxDelay'],
    [{ algorithm: 'gcra', rate: 10, mode: 'reserve', maxDelay: -1 }, 'spec.maxDelay'],
    [{ algorithm: 'token-bucket', capacity: 5, refillPerSecond: 1, mode: 'reserve', maxDelay: 'later' }, 'spec.maxDelay'],
    [{ algorithm: 'fixed-window', limit: 5, window: '1s', mode: 'reserve', maxDelay: '1s' }, 'spec.mode'],
    [{ qps: 10, mode: 'reserve' }, 'spec.maxDelay'],
    [{ limits: [{ qps: 10 }, { perMinute: 10, mode: 'reserve', maxDelay: 0 }] }, 'limits[1].maxDelay'],
    [{ algorithm: 'concurrency', limit: 5 }, 'spec.leaseTtl'],
    [{ limits: [{ qps: 1 }, { algorithm: 'concurrency', limit: 0, leaseTtl: '1m' }] }, 'limits[1].limit'],
  ])('%j → %s', (spec, field) => {
    const error = errorOf(() => createLimiter(spec as never));
    expect(error.code).toBe('ERR_TOLLGATE_INVALID_SPEC');
    expect(error.field).toBe(field);
    expect(error.message).toContain(field);
  });

  it('resolves warm-up to Guava SmoothWarmingUp constants, and reserve mode to a borrowing allowance', () => {
    const [warm] = createLimiter({ algorithm: 'warm-up', rate: 2, warmup: '3s' }).limits;
    expect(warm?.params).toEqual({ stableUs: 500_000, thresholdPermits: 3, maxPermits: 6, slope: 1_000_000 / 3, coolDownUs: 500_000 });
    const [reserve] = createLimiter({ qps: 10, burst: 2, mode: 'reserve', maxDelay: '1s' }).limits;
    expect(reserve?.params).toEqual({ intervalUs: 100_000, burst: 2, maxDelayUs: 1_000_000 });
    expect(reserve?.algorithm.limit(reserve.params)).toBe(12);
  });
});

describe('createConcurrencyLimiter validates its options', () => {
  it.each([
    [{ limit: 0, leaseTtl: '1m' }, 'spec.limit', 'ERR_TOLLGATE_INVALID_SPEC'],
    [{ limit: 2.5, leaseTtl: '1m' }, 'spec.limit', 'ERR_TOLLGATE_INVALID_SPEC'],
    [{ limit: 3 }, 'spec.leaseTtl', 'ERR_TOLLGATE_INVALID_SPEC'],
    [{ limit: 3, leaseTtl: '-1s' }, 'spec.leaseTtl', 'ERR_TOLLGATE_INVALID_SPEC'],
    [{ limit: 3, leaseTtl: '1m', rate: 5 }, 'spec.rate', 'ERR_TOLLGATE_INVALID_SPEC'],
    [{ limit: 3, leaseTtl: '1m', algorithm: 'gcra' }, 'spec.algorithm', 'ERR_TOLLGATE_INVALID_SPEC'],
    [{ limit: 3, leaseTtl: '1m', limits: [{ qps: 1 }] }, 'spec.limits', 'ERR_TOLLGATE_INVALID_SPEC'],
    [null, 'spec', 'ERR_TOLLGATE_INVALID_SPEC'],
    [{ limit: 3, leaseTtl: '1m', prefix: 'a b' }, 'prefix', 'ERR_TOLLGATE_INVALID_OPTION'],
    [{ limit: 3, leaseTtl: '1m', clock: 5 }, 'clock', 'ERR_TOLLGATE_INVALID_OPTION'],
    [{ limit: 3, leaseTtl: '1m', store: {} }, 'store', 'ERR_TOLLGATE_INVALID_OPTION'],
  ])('%j → %s', (options, field, code) => {
    const error = errorOf(() => createConcurrencyLimiter(options as never));
    expect(error).toMatchObject({ code, field });
  });

  it('rejects a bad key and a lease it did not hand out', async () => {
    const limiter = createConcurrencyLimiter({ limit: 1, leaseTtl: '1s' });
    await expect(limiter.acquire('')).rejects.toMatchObject({ code: 'ERR_TOLLGATE_INVALID_KEY', field: 'key' });
    await expect(limiter.release({ key: 'k' } as never)).rejects.toMatchObject({ code: 'ERR_TOLLGATE_INVALID_KEY', field: 'lease' });
    await expect(limiter.release(null as never)).rejects.toMatchObject({ field: 'lease' });
  });
});
