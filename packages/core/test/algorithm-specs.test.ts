import { describe, expect, it } from 'vitest';
import { createLimiter } from '../src/index.js';
import { errorOf } from './helpers/error-of.js';

describe('sliding window and leaky bucket specs are validated at construction', () => {
  it.each([
    [{ algorithm: 'sliding-window-log', window: '1s' }, 'spec.limit'],
    [{ algorithm: 'sliding-window-log', limit: 2.5, window: '1s' }, 'spec.limit'],
    [{ algorithm: 'sliding-window-log', limit: 5 }, 'spec.window'],
    [{ algorithm: 'sliding-window-log', limit: 5, window: '1s', burst: 2 }, 'spec.burst'],
    [{ algorithm: 'sliding-window-counter', limit: -1, window: '1s' }, 'spec.limit'],
    [{ algorithm: 'sliding-window-counter', limit: 5, window: 'soon' }, 'spec.window'],
    [{ algorithm: 'sliding-window-counter', limit: 1e9, window: '30d' }, 'spec.limit'],
    [{ algorithm: 'sliding-window-counter', limit: 5, window: '1s', precision: 10 }, 'spec.precision'],
    [{ algorithm: 'leaky-bucket' }, 'spec.rate'],
    [{ algorithm: 'leaky-bucket', rate: -1 }, 'spec.rate'],
    [{ algorithm: 'leaky-bucket', rate: 10, burst: 0 }, 'spec.burst'],
    [{ algorithm: 'leaky-bucket', rate: 10, period: 'weekly' }, 'spec.period'],
    [{ algorithm: 'leaky-bucket', rate: 10, mode: 'queue' }, 'spec.mode'],
    [{ algorithm: 'leaky-bucket', rate: 10, maxDelay: '1s' }, 'spec.maxDelay'],
    [{ algorithm: 'leaky-bucket', rate: 10, mode: 'shaping' }, 'spec.maxDelay'],
    [{ algorithm: 'leaky-bucket', rate: 10, mode: 'shaping', maxDelay: -5 }, 'spec.maxDelay'],
    [{ algorithm: 'leaky-bucket', rate: 10, mode: 'shaping', maxDelay: '1s', burst: 5 }, 'spec.burst'],
    [{ algorithm: 'leaky-bucket', rate: 1e9, period: 1, mode: 'shaping', maxDelay: '1s' }, 'spec.rate'],
    [{ limits: [{ qps: 1 }, { algorithm: 'leaky-bucket', rate: 1, mode: 'shaping', maxDelay: 0 }] }, 'limits[1].maxDelay'],
  ])('%j → %s', (spec, field) => {
    const error = errorOf(() => createLimiter(spec as never));
    expect(error.code).toBe('ERR_TOLLGATE_INVALID_SPEC');
    expect(error.field).toBe(field);
    expect(error.message).toContain(field);
  });
});

describe('resolved params, limit and policy', () => {
  it('leaky-bucket policing defaults to a burst of ceil(rate); shaping admits floor(maxDelay / interval) + 1 at once', () => {
    const [policing] = createLimiter({ algorithm: 'leaky-bucket', rate: 2.5 }).limits;
    expect(policing?.params).toEqual({ mode: 'policing', intervalUs: 400_000, burst: 3 });
    const [shaping] = createLimiter({ algorithm: 'leaky-bucket', mode: 'shaping', rate: 3, maxDelay: '1s' }).limits;
    expect(shaping?.params).toEqual({ mode: 'shaping', intervalUs: 333_333, maxDelayUs: 1_000_000, capacity: 4 });
    expect(shaping?.algorithm.limit(shaping.params)).toBe(4);
  });

  it('the windows advertise their limit per window', () => {
    for (const algorithm of ['sliding-window-log', 'sliding-window-counter'] as const) {
      const [limit] = createLimiter({ algorithm, limit: 100, window: '1m' }).limits;
      expect(limit?.algorithm.policy(limit.params)).toEqual({ quota: 100, windowMs: 60_000 });
    }
  });
});
