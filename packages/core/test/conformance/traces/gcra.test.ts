import { expect, it } from 'vitest';
import { describeTraces } from '../../helpers/describe-traces.js';
import { allowedFlags } from '../../helpers/virtual-limiter.js';

describeTraces('gcra reference traces', (setup) => {
  it('gcra 10/s burst 5 (future-state GCRA): exactly 5 simultaneous requests pass, the 6th is denied', async () => {
    const { burst, limiter, advance } = setup({ algorithm: 'gcra', rate: 10, period: '1s', burst: 5 });
    const decisions = await burst(6);
    expect(allowedFlags(decisions)).toEqual([true, true, true, true, true, false]);
    expect(decisions.map((d) => d.remaining)).toEqual([4, 3, 2, 1, 0, 0]);
    expect(decisions[5]).toMatchObject({ limit: 5, retryAfterMs: 100, resetAfterMs: 500 });
    // A denied request changes nothing: peeking before and after another denial agrees.
    const before = await limiter.peek('user-1');
    await limiter.consume('user-1');
    expect(await limiter.peek('user-1')).toEqual(before);
    advance(99);
    expect((await limiter.consume('user-1')).allowed).toBe(false);
    advance(1);
    expect(await limiter.consume('user-1')).toMatchObject({ allowed: true, remaining: 0, resetAfterMs: 500 });
  });

  it('gcra: the qps shorthand is the same limiter, and a cost above the burst can never pass', async () => {
    const { burst } = setup({ qps: 10, burst: 5 });
    expect(allowedFlags(await burst(6))).toEqual([true, true, true, true, true, false]);
    const { limiter } = setup({ qps: 10, burst: 5 });
    expect(await limiter.consume('user-1', { cost: 6 })).toMatchObject({ allowed: false, retryAfterMs: Infinity, remaining: 5 });
    expect(await limiter.consume('user-1', { cost: 5 })).toMatchObject({ allowed: true, remaining: 0 });
  });

  it('gcra reserve mode: 10/s burst 2 lends up to 300 ms ahead, evenly spaced delays', async () => {
    const { burst, limiter, advance } = setup({ algorithm: 'gcra', rate: 10, burst: 2, mode: 'reserve', maxDelay: 300 });
    const decisions = await burst(6);
    expect(decisions.map((d) => [d.allowed, d.delayMs, d.remaining])).toEqual([
      [true, 0, 4],
      [true, 0, 3],
      [true, 100, 2],
      [true, 200, 1],
      [true, 300, 0],
      [false, 0, 0],
    ]);
    expect(decisions[0]!.limit).toBe(5);
    expect(decisions[5]).toMatchObject({ retryAfterMs: 100 });
    // A cost whose delay would exceed maxDelay even from rest can never pass.
    expect(await limiter.consume('user-2', { cost: 6 })).toMatchObject({ allowed: false, retryAfterMs: Infinity });
    advance(100);
    expect(await limiter.consume('user-1')).toMatchObject({ allowed: true, delayMs: 300 });
  });
});
