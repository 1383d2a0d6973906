import { describe, expect, it } from 'vitest';
import { useBackends } from '../helpers/per-file-servers.js';
import { virtualLimiter } from '../helpers/virtual-limiter.js';

const storeNamed = useBackends();

const remainingOf = (decision: { limits: { remaining: number }[] }) => decision.limits.map((limit) => limit.remaining);

describe.each(['memory', 'redis', 'cluster'] as const)('hold and settle on the %s store', (name) => {
  const setup = (rule: Parameters<typeof virtualLimiter>[1]) => virtualLimiter(storeNamed(name), rule);
  const window = { algorithm: 'fixed-window', limit: 10, window: '1m' } as const;

  it('charges the estimate up front; settle gives back the unused part, once', async () => {
    const { limiter } = setup(window);
    const hold = await limiter.hold('user-1', { cost: 4 });
    expect(hold.decision).toMatchObject({ allowed: true, remaining: 6 });
    expect(hold.status).toBe('open');
    // A cost-1 request would now leave 8: 1 of the 4 stays charged.
    expect(await hold.settle(1)).toMatchObject({ allowed: true, remaining: 8 });
    expect(hold.status).toBe('settled');
    expect(await hold.settle(0)).toMatchObject({ remaining: 8 });
    expect(await hold.cancel()).toMatchObject({ remaining: 8 });
  });

  it('charges an excess even beyond the limit, never refused', async () => {
    const { limiter } = setup(window);
    const hold = await limiter.hold('user-1', { cost: 4 });
    expect(await hold.settle(13)).toMatchObject({ allowed: false, remaining: 0, retryAfterMs: 60_000 });
    const next = await limiter.hold('user-1');
    expect(next.status).toBe('denied');
    expect(await next.settle(0)).toMatchObject({ allowed: false });
    // 13 charged: a refund of 3 leaves it at the limit, one of 4 leaves room for one more.
    expect((await limiter.refund('user-1', { cost: 3 })).allowed).toBe(false);
    expect((await limiter.refund('user-1', { cost: 1 })).allowed).toBe(true);
  });

  it('cancel gives the whole estimate back', async () => {
    const { limiter } = setup(window);
    const hold = await limiter.hold('user-1', { cost: 10 });
    expect((await limiter.consume('user-1')).allowed).toBe(false);
    expect(await hold.cancel()).toMatchObject({ allowed: true, remaining: 9 });
    expect(hold.status).toBe('cancelled');
  });

  it('a settle after the window the hold charged gives nothing to the next one', async () => {
    const { limiter, advance } = setup(window);
    const hold = await limiter.hold('user-1', { cost: 8 });
    advance(60_000);
    await limiter.consume('user-1', { cost: 9 });
    expect(await hold.settle(0)).toMatchObject({ allowed: true, remaining: 0 });
  });

  it('after its ttl a hold stays charged at its estimate', async () => {
    const { limiter, advance } = setup(window);
    const hold = await limiter.hold('user-1', { cost: 6, ttl: '5s' });
    advance(5000);
    expect(await hold.cancel()).toMatchObject({ remaining: 3 });
    expect(hold.status).toBe('expired');
  });

  it('charges each limit the amount of its unit; a unit not named costs 1', async () => {
    const { limiter } = setup({
      limits: [
        { name: 'rpm', algorithm: 'fixed-window', limit: 5, window: '1m' },
        { name: 'tpm', algorithm: 'fixed-window', limit: 1000, window: '1m', unit: 'tokens' },
      ],
    });
    const hold = await limiter.hold('user-1', { cost: { tokens: 300 } });
    expect(remainingOf(hold.decision)).toEqual([4, 700]);
    // 450 more tokens than estimated, beyond what the estimate of the next one allows.
    expect(remainingOf(await hold.settle({ tokens: 750 }))).toEqual([3, 249]);
    expect((await limiter.hold('user-1', { cost: { tokens: 300 } })).status).toBe('denied');
    const small = await limiter.consume('user-1', { cost: { requests: 1, tokens: 250 } });
    expect(remainingOf(small)).toEqual([3, 0]);
    const unused = await limiter.hold('user-1', { cost: { tokens: 0 } });
    expect(remainingOf(await unused.cancel())).toEqual([2, 0]);
  });

  it('releases the slot of a concurrency limit on settle', async () => {
    const { limiter } = setup({
      limits: [
        { name: 'in-flight', algorithm: 'concurrency', limit: 1, leaseTtl: '1m' },
        { name: 'tpm', algorithm: 'fixed-window', limit: 1000, window: '1m', unit: 'tokens' },
      ],
    });
    const hold = await limiter.hold('user-1', { cost: { tokens: 100 } });
    expect((await limiter.hold('user-1', { cost: { tokens: 100 } })).status).toBe('denied');
    await hold.settle({ tokens: 40 });
    const next = await limiter.hold('user-1', { cost: { tokens: 100 } });
    expect(remainingOf(next.decision)).toEqual([0, 860]);
  });

  it('refuses a unit the rule does not count and an option it does not take', async () => {
    const { limiter } = setup({ ...window, unit: 'tokens' });
    await expect(limiter.hold('user-1', { cost: { tokns: 5 } })).rejects.toMatchObject({
      code: 'ERR_TOLLGATE_INVALID_COST',
      field: 'cost.tokns',
    });
    await expect(limiter.hold('user-1', { cost: 1, tll: '1s' } as never)).rejects.toMatchObject({
      code: 'ERR_TOLLGATE_INVALID_OPTION',
      field: 'tll',
    });
    await expect(limiter.hold('user-1', { ttl: 'soon' as never })).rejects.toMatchObject({
      code: 'ERR_TOLLGATE_INVALID_OPTION',
      field: 'ttl',
    });
    const hold = await limiter.hold('user-1');
    await expect(hold.settle({ tokens: -1 })).rejects.toMatchObject({ code: 'ERR_TOLLGATE_INVALID_COST', field: 'actual.tokens' });
    expect(hold.status).toBe('open');
  });
});
