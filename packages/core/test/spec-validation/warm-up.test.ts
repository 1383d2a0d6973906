import { describe, expect, it } from 'vitest';
import { createLimiter } from '../../src/index.js';
import { itRefusesSpecs } from '../helpers/refuses-spec.js';

describe('a warm-up spec is refused, naming the field', () => {
  itRefusesSpecs([
    [{ algorithm: 'warm-up', rate: Number.MIN_VALUE, warmup: '1s' }, 'spec.rate'],
    [{ algorithm: 'warm-up', rate: 10, warmup: 1e300 }, 'spec.warmup'],
    [{ algorithm: 'warm-up', rate: 10, warmup: '1s', coldFactor: 1e300 }, 'spec.coldFactor'],
    [{ algorithm: 'warm-up', rate: 2 }, 'spec.warmup'],
    [{ algorithm: 'warm-up', rate: 2, warmup: '0s' }, 'spec.warmup'],
    [{ algorithm: 'warm-up', rate: 0, warmup: '3s' }, 'spec.rate'],
    [{ algorithm: 'warm-up', rate: 1e9, period: 1, warmup: '3s' }, 'spec.rate'],
    [{ algorithm: 'warm-up', rate: 2, warmup: '3s', coldFactor: 0.5 }, 'spec.coldFactor'],
    [{ algorithm: 'warm-up', rate: 2, warmup: '3s', coldFactor: '3' }, 'spec.coldFactor'],
    [{ algorithm: 'warm-up', rate: 2, warmup: '3s', coldFactor: Number.POSITIVE_INFINITY }, 'spec.coldFactor'],
    [{ algorithm: 'warm-up', rate: 2, warmup: '3s', burst: 4 }, 'spec.burst'],
  ]);

  it('resolves warm-up to Guava SmoothWarmingUp constants', () => {
    const [warm] = createLimiter({ algorithm: 'warm-up', rate: 2, warmup: '3s' }).limits;
    expect(warm?.params).toEqual({ stableUs: 500_000, thresholdPermits: 3, maxPermits: 6, slope: 1_000_000 / 3, coolDownUs: 500_000 });
  });
});
