import { expect, it } from 'vitest';
import { describeTraces } from '../../helpers/describe-traces.js';

describeTraces('sliding-window-counter reference traces', (setup) => {
  it('sliding-window-counter 10/s (Cloudflare sliding-window counter): the previous window weighs by the part still covered', async () => {
    const { limiter, advance, burst } = setup({ algorithm: 'sliding-window-counter', limit: 10, window: '1s' });
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
    const { limiter, advance } = setup({ algorithm: 'sliding-window-counter', limit: 50, window: '1m' });
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
});
