import { describe, expect, it } from 'vitest';
import { useBackends } from '../helpers/per-file-servers.js';
import { allowedFlags, virtualLimiter } from '../helpers/virtual-limiter.js';

const storeNamed = useBackends();

describe.each(['memory', 'redis', 'cluster'] as const)('refund on the %s store', (name) => {
  const setup = (rule: Parameters<typeof virtualLimiter>[1]) => virtualLimiter(storeNamed(name), rule);

  it('gcra: the TAT moves back by the cost, never before now', async () => {
    const { limiter, burst } = setup({ qps: 10, burst: 5 });
    await burst(5);
    expect(await limiter.refund('user-1', { cost: 2 })).toMatchObject({ allowed: true, remaining: 2 });
    expect(allowedFlags(await burst(3))).toEqual([true, true, false]);
    expect(await limiter.refund('user-1', { cost: 100 })).toMatchObject({ allowed: true, remaining: 5, resetAfterMs: 100 });
    expect(allowedFlags(await burst(6))).toEqual([true, true, true, true, true, false]);
  });

  it('token bucket: tokens come back, up to the capacity', async () => {
    const { limiter, burst } = setup({ algorithm: 'token-bucket', capacity: 5, refillPerSecond: 1 });
    await burst(5);
    expect(await limiter.refund('user-1', { cost: 3 })).toMatchObject({ allowed: true, remaining: 3 });
    expect(await limiter.refund('user-1', { cost: 100 })).toMatchObject({ allowed: true, remaining: 5 });
    expect(allowedFlags(await burst(6))).toEqual([true, true, true, true, true, false]);
  });

  it('fixed window: the count drops, not below 0, and the window keeps its end', async () => {
    const { limiter, burst, advance } = setup({ algorithm: 'fixed-window', limit: 3, window: '1s' });
    await burst(3);
    advance(400);
    expect(await limiter.refund('user-1')).toMatchObject({ allowed: true, remaining: 1, resetAfterMs: 600 });
    expect(allowedFlags(await burst(2))).toEqual([true, false]);
    expect(await limiter.refund('user-1', { cost: 5 })).toMatchObject({ remaining: 3 });
    expect(await limiter.consume('user-1')).toMatchObject({ allowed: true, remaining: 2, resetAfterMs: 600 });
  });

  it('sliding-window-log: the newest entries go', async () => {
    const { limiter, advance } = setup({ algorithm: 'sliding-window-log', limit: 3, window: '1s' });
    for (let i = 0; i < 3; i++) {
      await limiter.consume('user-1');
      advance(100);
    }
    advance(-50);
    // t = 250: the entry of t = 200 goes, those of t = 0 and 100 stay.
    expect(await limiter.refund('user-1')).toMatchObject({ allowed: true, remaining: 1, resetAfterMs: 1000 });
    advance(50);
    expect(await limiter.consume('user-1')).toMatchObject({ allowed: true, remaining: 0 });
    expect(await limiter.consume('user-1')).toMatchObject({ allowed: false, retryAfterMs: 700 });
    expect(await limiter.refund('user-1', { cost: 10 })).toMatchObject({ allowed: true, remaining: 3, resetAfterMs: 1000 });
  });

  it('sliding-window-counter: the current count drops; the previous window cannot be refunded', async () => {
    const { limiter, burst, advance } = setup({ algorithm: 'sliding-window-counter', limit: 5, window: '1s' });
    await burst(5);
    expect(await limiter.refund('user-1', { cost: 2 })).toMatchObject({ allowed: true, remaining: 2 });
    expect(allowedFlags(await burst(3))).toEqual([true, true, false]);
    advance(1000);
    expect(await limiter.refund('user-1', { cost: 3 })).toMatchObject({ allowed: false, remaining: 0, retryAfterMs: 200 });
  });

  it('leaky-bucket policing: the level drops, not below empty', async () => {
    const { limiter, burst } = setup({ algorithm: 'leaky-bucket', rate: 1, burst: 3 });
    await burst(3);
    expect(await limiter.refund('user-1')).toMatchObject({ allowed: true, remaining: 1 });
    expect(allowedFlags(await burst(2))).toEqual([true, false]);
    expect(await limiter.refund('user-1', { cost: 10 })).toMatchObject({ allowed: true, remaining: 3, resetAfterMs: 1000 });
  });

  it('leaky-bucket shaping: the last slots are freed, never one already past', async () => {
    const { limiter, burst } = setup({ algorithm: 'leaky-bucket', mode: 'shaping', rate: 10, maxDelay: '1s' });
    expect((await burst(3)).map((d) => d.delayMs)).toEqual([0, 100, 200]);
    expect(await limiter.refund('user-1')).toMatchObject({ allowed: true, delayMs: 200 });
    expect(await limiter.consume('user-1')).toMatchObject({ allowed: true, delayMs: 200 });
    expect(await limiter.refund('user-1', { cost: 100 })).toMatchObject({ allowed: true, delayMs: 0, remaining: 11 });
    expect(await limiter.consume('user-1')).toMatchObject({ allowed: true, delayMs: 0 });
  });

  it('a multi-limit rule gives back to every limit', async () => {
    const { limiter, burst } = setup({
      limits: [
        { name: 'second', qps: 10, burst: 2 },
        { name: 'minute', algorithm: 'sliding-window-log', limit: 3, window: '1m' },
      ],
    });
    await burst(2);
    const refund = await limiter.refund('user-1');
    expect(refund.limits.map((l) => [l.name, l.remaining])).toEqual([
      ['second', 1],
      ['minute', 2],
    ]);
    expect(allowedFlags(await burst(2))).toEqual([true, false]);
    expect((await limiter.peek('user-1')).limits[1]).toMatchObject({ remaining: 1 });
  });

  it('rejects a bad cost like consume does', async () => {
    const { limiter } = setup({ qps: 1 });
    await expect(limiter.refund('user-1', { cost: 0 })).rejects.toMatchObject({ code: 'ERR_TOLLGATE_INVALID_COST', field: 'cost' });
  });
});
