import { expect, it } from 'vitest';
import { describeTraces } from '../../helpers/describe-traces.js';

describeTraces('multi-limit rule reference traces', (setup) => {
  it('a multi-limit rule commits all or nothing and reports the most restrictive limit', async () => {
    const { limiter, advance } = setup({
      limits: [
        { name: 'second', qps: 10, burst: 5 },
        { name: 'minute', algorithm: 'fixed-window', limit: 7, window: '1m' },
      ],
    });
    for (let i = 0; i < 5; i++) await limiter.consume('user-1');
    const denied = await limiter.consume('user-1');
    expect(denied).toMatchObject({ allowed: false, limitName: 'second', retryAfterMs: 100 });
    // The per-second denial consumed nothing from the per-minute window.
    expect(denied.limits[1]).toMatchObject({ name: 'minute', remaining: 2 });
    advance(1000);
    expect(await limiter.consume('user-1')).toMatchObject({ allowed: true, limitName: 'minute', remaining: 1 });
    await limiter.consume('user-1');
    const byMinute = await limiter.consume('user-1');
    expect(byMinute).toMatchObject({ allowed: false, limitName: 'minute', retryAfterMs: 59_000 });
    expect(byMinute.limits[0]).toMatchObject({ name: 'second', allowed: true, remaining: 3 });
  });

  it('reserve mode in a multi-limit rule: the longest delay wins, a denial elsewhere borrows nothing', async () => {
    const { limiter } = setup({
      limits: [
        { name: 'smooth', qps: 10, burst: 1, mode: 'reserve', maxDelay: '1s' },
        { name: 'minute', algorithm: 'fixed-window', limit: 3, window: '1m' },
      ],
    });
    const delays = [];
    for (let i = 0; i < 3; i++) delays.push((await limiter.consume('user-1')).delayMs);
    expect(delays).toEqual([0, 100, 200]);
    const denied = await limiter.consume('user-1');
    expect(denied).toMatchObject({ allowed: false, limitName: 'minute', delayMs: 0 });
    // Nothing was borrowed by the denied request: the smooth limit still lends 7 more.
    expect(denied.limits[0]).toMatchObject({ name: 'smooth', allowed: true, remaining: 8 });
  });

  it('a shaped request refused by another limit of the rule takes no slot', async () => {
    const { limiter, burst } = setup({
      limits: [
        { name: 'shaper', algorithm: 'leaky-bucket', mode: 'shaping', rate: 10, maxDelay: '1s' },
        { name: 'minute', algorithm: 'fixed-window', limit: 3, window: '1m' },
      ],
    });
    expect((await burst(3)).map((d) => d.delayMs)).toEqual([0, 100, 200]);
    const denied = await limiter.consume('user-1');
    expect(denied).toMatchObject({ allowed: false, limitName: 'minute', delayMs: 0 });
    expect(denied.limits[0]).toMatchObject({ name: 'shaper', allowed: true, remaining: 8 });
    expect((await limiter.peek('user-1')).limits[0]).toMatchObject({ delayMs: 300, remaining: 8 });
  });
});
