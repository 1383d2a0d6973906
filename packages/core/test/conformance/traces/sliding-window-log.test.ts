import { expect, it } from 'vitest';
import { describeTraces } from '../../helpers/describe-traces.js';
import { allowedFlags } from '../../helpers/virtual-limiter.js';

describeTraces('sliding-window-log reference traces', (setup) => {
  it('sliding-window-log 3/s (sorted-set log): exact over any 1 s span, denied requests are not recorded', async () => {
    const { limiter, advance } = setup({ algorithm: 'sliding-window-log', limit: 3, window: '1s' });
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
    const { limiter, advance } = setup({ algorithm: 'sliding-window-log', limit: 5, window: '1m' });
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
});
