import { expect, it } from 'vitest';
import { describeTraces } from '../../helpers/describe-traces.js';
import { allowedFlags } from '../../helpers/virtual-limiter.js';

describeTraces('leaky-bucket reference traces', (setup) => {
  it('leaky-bucket policing 2/s, burst 3 (nginx limit_req with nodelay): the level drains at the rate, a full bucket denies', async () => {
    const { limiter, advance, burst } = setup({ algorithm: 'leaky-bucket', rate: 2, burst: 3 });
    const decisions = await burst(4);
    expect(allowedFlags(decisions)).toEqual([true, true, true, false]);
    expect(decisions.map((d) => d.remaining)).toEqual([2, 1, 0, 0]);
    expect(decisions[3]).toMatchObject({ limit: 3, retryAfterMs: 500, resetAfterMs: 1500, delayMs: 0 });
    advance(499);
    expect(await limiter.consume('user-1')).toMatchObject({ allowed: false, retryAfterMs: 1 });
    advance(1);
    expect(await limiter.consume('user-1')).toMatchObject({ allowed: true, remaining: 0 });
    advance(10_000);
    expect(await limiter.peek('user-1')).toMatchObject({ allowed: true, remaining: 3, resetAfterMs: 500 });
  });

  it('leaky-bucket shaping 10/s (nginx limit_req burst without nodelay): 10 simultaneous requests leave 100 ms apart', async () => {
    const { limiter, advance } = setup({ algorithm: 'leaky-bucket', mode: 'shaping', rate: 10, maxDelay: '1s' });
    const decisions = await Promise.all(Array.from({ length: 12 }, () => limiter.consume('user-1')));
    expect(allowedFlags(decisions)).toEqual([...Array<boolean>(11).fill(true), false]);
    expect(decisions.map((d) => d.delayMs)).toEqual([0, 100, 200, 300, 400, 500, 600, 700, 800, 900, 1000, 0]);
    expect(decisions.map((d) => d.remaining)).toEqual([10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 0]);
    expect(decisions[11]).toMatchObject({ limit: 11, retryAfterMs: 100, resetAfterMs: 1100 });
    advance(100);
    expect(await limiter.consume('user-1')).toMatchObject({ allowed: true, delayMs: 1000, remaining: 0 });
  });

  it('leaky-bucket shaping at 3/s rounds each slot up to the millisecond it is due', async () => {
    const { limiter } = setup({ algorithm: 'leaky-bucket', mode: 'shaping', rate: 3, maxDelay: '1s' });
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
});
