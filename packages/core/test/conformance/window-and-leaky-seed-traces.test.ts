import { describe, expect, it } from 'vitest';
import { useBackends } from '../helpers/per-file-servers.js';
import { allowedFlags, virtualLimiter } from '../helpers/virtual-limiter.js';

const storeNamed = useBackends();

describe.each(['memory', 'redis', 'cluster'] as const)('sliding window, leaky bucket reference traces on the %s store', (name) => {
  it('sliding-window-log 3/s (sorted-set log): exact over any 1 s span, denied requests are not recorded', async () => {
    const { limiter, advance } = virtualLimiter(storeNamed(name), { algorithm: 'sliding-window-log', limit: 3, window: '1s' });
    expect(await limiter.consume('user-1')).toMatchObject({ allowed: true, remaining: 2, resetAfterMs: 1000, limit: 3 });
    advance(300);
    expect(await limiter.consume('user-1')).toMatchObject({ allowed: true, remaining: 1, resetAfterMs: 1000 });
    advance(300);
    expect(await limiter.consume('user-1')).toMatchObject({ allowed: true, remaining: 0, resetAfterMs: 1000 });
    advance(399);
    // t = 999: the request of t = 0 is still in the window; it leaves in 1 ms.
    expect(await limiter.consume('user-1')).toMatchObject({ allowed: false, remaining: 0, retryAfterMs: 1, resetAfterMs: 601 });
    advance(1);
    // t = 1000: one slot freed (a fixed window would admit 3 here), and the denial above took none.
    expect(await limiter.consume('user-1')).toMatchObject({ allowed: true, remaining: 0 });
    expect(await limiter.consume('user-1')).toMatchObject({ allowed: false, retryAfterMs: 300, resetAfterMs: 1000 });
  });

  it('sliding-window-log: simultaneous requests are distinct members; costs take one member per unit', async () => {
    const { limiter, advance } = virtualLimiter(storeNamed(name), { algorithm: 'sliding-window-log', limit: 5, window: '1m' });
    const decisions = await Promise.all(Array.from({ length: 7 }, () => limiter.consume('user-1')));
    expect(allowedFlags(decisions)).toEqual([true, true, true, true, true, false, false]);
    expect(decisions.map((d) => d.remaining)).toEqual([4, 3, 2, 1, 0, 0, 0]);
    advance(60_000);
    expect(await limiter.consume('user-1', { cost: 3 })).toMatchObject({ allowed: true, remaining: 2 });
    advance(500);
    // All three units of that request leave together, 60 s after it.
    expect(await limiter.consume('user-1', { cost: 3 })).toMatchObject({ allowed: false, remaining: 2, retryAfterMs: 59_500 });
    expect(await limiter.consume('user-1', { cost: 6 })).toMatchObject({ allowed: false, retryAfterMs: Infinity });
    expect(await limiter.consume('user-1', { cost: 2 })).toMatchObject({ allowed: true, remaining: 0 });
  });

  it('sliding-window-counter 10/s (Cloudflare sliding-window counter): the previous window weighs by the part still covered', async () => {
    const { limiter, advance, burst } = virtualLimiter(storeNamed(name), { algorithm: 'sliding-window-counter', limit: 10, window: '1s' });
    const decisions = await burst(11);
    expect(decisions.map((d) => d.remaining)).toEqual([9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 0]);
    // 10 in the previous window weigh ≤ 9 from 100 ms into the next one: 10 × 900/1000 + 1 ≤ 10.
    expect(decisions[10]).toMatchObject({ allowed: false, retryAfterMs: 1100, resetAfterMs: 2000 });
    advance(1099);
    expect(await limiter.consume('user-1')).toMatchObject({ allowed: false, retryAfterMs: 1 });
    advance(1);
    expect(await limiter.consume('user-1')).toMatchObject({ allowed: true, remaining: 0 });
    advance(150);
    // t = 1250: 10 × 0.75 + 1 = 8.5, room for one more; then 10 × 0.75 + 2 + 1 > 10 until t = 1300.
    expect(await limiter.consume('user-1')).toMatchObject({ allowed: true, remaining: 0 });
    expect(await limiter.consume('user-1')).toMatchObject({ allowed: false, retryAfterMs: 50, resetAfterMs: 1750 });
    advance(50);
    expect(await limiter.consume('user-1')).toMatchObject({ allowed: true });
  });

  it("sliding-window-counter: Cloudflare's example, 42 then 18 of 50/min estimate 49.5 at 15 s", async () => {
    const { limiter, advance } = virtualLimiter(storeNamed(name), { algorithm: 'sliding-window-counter', limit: 50, window: '1m' });
    expect(await limiter.consume('user-1', { cost: 42 })).toMatchObject({ allowed: true, remaining: 8 });
    advance(75_000);
    expect(await limiter.consume('user-1', { cost: 18 })).toMatchObject({ allowed: true, remaining: 0 });
    // 49.5 + 1 > 50; 42 × (60 − 15.715)/60 + 18 + 1 ≤ 50 only from 15.715 s into the window.
    expect(await limiter.peek('user-1')).toMatchObject({ allowed: false, remaining: 0, retryAfterMs: 715 });
    advance(714);
    expect((await limiter.consume('user-1')).allowed).toBe(false);
    advance(1);
    expect((await limiter.consume('user-1')).allowed).toBe(true);
  });

  it('leaky-bucket policing 2/s, burst 3 (nginx limit_req with nodelay): the level drains at the rate, a full bucket denies', async () => {
    const { limiter, advance, burst } = virtualLimiter(storeNamed(name), { algorithm: 'leaky-bucket', rate: 2, burst: 3 });
    const decisions = await burst(4);
    expect(allowedFlags(decisions)).toEqual([true, true, true, false]);
    expect(decisions.map((d) => d.remaining)).toEqual([2, 1, 0, 0]);
    expect(decisions[3]).toMatchObject({ limit: 3, retryAfterMs: 500, resetAfterMs: 1500, delayMs: 0 });
    advance(499);
    expect(await limiter.consume('user-1')).toMatchObject({ allowed: false, retryAfterMs: 1 });
    advance(1);
    expect(await limiter.consume('user-1')).toMatchObject({ allowed: true, remaining: 0 });
    advance(10_000);
    expect(await limiter.peek('user-1')).toMatchObject({ allowed: true, remaining: 2, resetAfterMs: 500 });
  });

  it('leaky-bucket shaping 10/s (nginx limit_req burst without nodelay): 10 simultaneous requests leave 100 ms apart', async () => {
    const { limiter, advance } = virtualLimiter(storeNamed(name), { algorithm: 'leaky-bucket', mode: 'shaping', rate: 10, maxDelay: '1s' });
    const decisions = await Promise.all(Array.from({ length: 12 }, () => limiter.consume('user-1')));
    expect(allowedFlags(decisions)).toEqual([...Array<boolean>(11).fill(true), false]);
    expect(decisions.map((d) => d.delayMs)).toEqual([0, 100, 200, 300, 400, 500, 600, 700, 800, 900, 1000, 0]);
    expect(decisions.map((d) => d.remaining)).toEqual([10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 0]);
    expect(decisions[11]).toMatchObject({ limit: 11, retryAfterMs: 100, resetAfterMs: 1100 });
    advance(100);
    expect(await limiter.consume('user-1')).toMatchObject({ allowed: true, delayMs: 1000, remaining: 0 });
  });

  it('leaky-bucket shaping at 3/s rounds each slot up to the millisecond it is due', async () => {
    const { limiter } = virtualLimiter(storeNamed(name), { algorithm: 'leaky-bucket', mode: 'shaping', rate: 3, maxDelay: '1s' });
    const decisions = await Promise.all(Array.from({ length: 5 }, () => limiter.consume('user-1')));
    expect(decisions.map((d) => [d.allowed, d.delayMs])).toEqual([
      [true, 0],
      [true, 334],
      [true, 667],
      [true, 1000],
      [false, 0],
    ]);
    expect(decisions[4]).toMatchObject({ retryAfterMs: 334 });
  });

  it('a shaped request refused by another limit of the rule takes no slot', async () => {
    const { limiter, burst } = virtualLimiter(storeNamed(name), {
      limits: [
        { name: 'shaper', algorithm: 'leaky-bucket', mode: 'shaping', rate: 10, maxDelay: '1s' },
        { name: 'minute', algorithm: 'fixed-window', limit: 3, window: '1m' },
      ],
    });
    expect((await burst(3)).map((d) => d.delayMs)).toEqual([0, 100, 200]);
    const denied = await limiter.consume('user-1');
    expect(denied).toMatchObject({ allowed: false, limitName: 'minute', delayMs: 0 });
    expect(denied.limits[0]).toMatchObject({ name: 'shaper', allowed: true, remaining: 8 });
    expect((await limiter.peek('user-1')).limits[0]).toMatchObject({ delayMs: 300, remaining: 7 });
  });
});
