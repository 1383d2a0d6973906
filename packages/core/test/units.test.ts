import { describe, expect, it } from 'vitest';
import { createLimiter, MemoryStore, TollgateError } from '../src/index.js';
import { errorOf } from './helpers/error-of.js';

const TWO_UNITS = {
  limits: [
    { name: 'rpm', algorithm: 'fixed-window', limit: 5, window: '1m' },
    { name: 'tpm', algorithm: 'fixed-window', limit: 1000, window: '1m', unit: 'tokens' },
  ],
} as const;

const remainingOf = (decision: { limits: { remaining: number }[] }) => decision.limits.map((limit) => limit.remaining);

describe('limit units', () => {
  it('a limit counts requests unless its spec names another unit', () => {
    expect(createLimiter({ ...TWO_UNITS, store: new MemoryStore() }).limits.map((limit) => limit.unit)).toEqual(['requests', 'tokens']);
  });

  it.each([
    ['Tokens', 'spec.unit'],
    ['concurrent-requests', 'spec.unit'],
    ['', 'spec.unit'],
    [7, 'spec.unit'],
  ])('refuses the unit %j, naming %s', (unit, field) => {
    const error = errorOf(() => createLimiter({ perMinute: 5, unit } as never));
    expect(error).toMatchObject({ code: 'ERR_TOLLGATE_INVALID_SPEC', field });
  });

  it('names the limit of a bad unit in a rule of several', () => {
    const error = errorOf(() => createLimiter({ limits: [{ perMinute: 5 }, { perMinute: 9, unit: 'to kens' }] } as never));
    expect(error).toMatchObject({ code: 'ERR_TOLLGATE_INVALID_SPEC', field: 'limits[1].unit' });
  });
});

describe('costs per unit', () => {
  const limiter = () => createLimiter({ ...TWO_UNITS, store: new MemoryStore() });

  it('charges each limit the amount of its unit, and a refund of the charge gives each back what it took', async () => {
    const tokens = limiter();
    const decision = await tokens.consume('user-1', { cost: { tokens: 300 } });
    expect(remainingOf(decision)).toEqual([4, 700]);
    expect(decision.charge).toMatchObject({ cost: 300, costs: [1, 300] });
    expect(remainingOf(await tokens.refund('user-1', { charge: decision }))).toEqual([5, 1000]);
    expect(decision.charge).toBeUndefined();
  });

  it('refuses to part a charge of several units', async () => {
    const tokens = limiter();
    const decision = await tokens.consume('user-1', { cost: { tokens: 300 } });
    await expect(tokens.refund('user-1', { charge: decision, cost: 100 })).rejects.toMatchObject({
      code: 'ERR_TOLLGATE_INVALID_OPTION',
      field: 'cost',
    });
  });

  it('amounts equal on every limit charge as a plain cost does', async () => {
    const decision = await limiter().consume('user-1', { cost: { requests: 2, tokens: 2 } });
    expect(decision.charge).toMatchObject({ cost: 2 });
    expect(decision.charge?.costs).toBeUndefined();
  });

  it('refunds amounts per unit without a charge', async () => {
    const tokens = limiter();
    await tokens.consume('user-1', { cost: { tokens: 600 } });
    expect(remainingOf(await tokens.refund('user-1', { cost: { requests: 0, tokens: 250 } }))).toEqual([4, 650]);
  });

  it.each([
    [{ tokns: 3 }, 'cost.tokns'],
    [{ tokens: -1 }, 'cost.tokens'],
    [{ tokens: 1.5 }, 'cost.tokens'],
    [0, 'cost'],
  ])('refuses the cost %j, naming %s', async (cost, field) => {
    const error = await limiter()
      .consume('user-1', { cost })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TollgateError);
    expect(error).toMatchObject({ code: 'ERR_TOLLGATE_INVALID_COST', field });
  });
});
