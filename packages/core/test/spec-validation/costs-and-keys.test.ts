import { describe, expect, it } from 'vitest';
import { createLimiter } from '../../src/index.js';

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
    expect(await limiter.peek(key)).toMatchObject({ remaining: 5, resetAfterMs: 100 });
  });

  it.each([0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, '2'])('a rejected refund of %s gave nothing back', async (cost) => {
    const now = Date.UTC(2026, 5, 1, 12);
    const limiter = createLimiter({ qps: 10, burst: 5, clock: () => now });
    const key = `charged-${String(cost)}`;
    await limiter.consume(key, { cost: 2 });
    await limiter.refund(key, { cost: cost as number }).catch(() => {});
    expect(await limiter.peek(key)).toMatchObject({ remaining: 3, resetAfterMs: 300 });
  });
});
