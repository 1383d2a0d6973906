import { describe, expect, it } from 'vitest';
import { createConcurrencyLimiter } from '../../src/index.js';
import { errorOf } from '../helpers/error-of.js';
import { itRefusesSpecs } from '../helpers/refuses-spec.js';

describe('a concurrency spec is refused, naming the field', () => {
  itRefusesSpecs([
    [{ algorithm: 'concurrency', limit: 5, leaseTtl: 1e300 }, 'spec.leaseTtl'],
    [{ algorithm: 'concurrency', limit: 5 }, 'spec.leaseTtl'],
    [{ limits: [{ qps: 1 }, { algorithm: 'concurrency', limit: 1.5, leaseTtl: '1m' }] }, 'limits[1].limit'],
  ]);
});

describe('createConcurrencyLimiter validates its options', () => {
  it.each([
    [{ limit: -1, leaseTtl: '1m' }, 'spec.limit', 'ERR_TOLLGATE_INVALID_SPEC'],
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
