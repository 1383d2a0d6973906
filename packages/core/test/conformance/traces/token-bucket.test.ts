import { expect, it } from 'vitest';
import { describeTraces } from '../../helpers/describe-traces.js';

describeTraces('token-bucket reference traces', (setup) => {
  it('token bucket capacity 20, 5/s (Stripe request rate limiter): bursts to capacity, then refills one token per 200 ms', async () => {
    const { burst, advance, limiter } = setup({ algorithm: 'token-bucket', capacity: 20, refillPerSecond: 5 });
    const decisions = await burst(21);
    expect(decisions.filter((d) => d.allowed)).toHaveLength(20);
    expect(decisions[20]).toMatchObject({ allowed: false, remaining: 0, retryAfterMs: 200, resetAfterMs: 4000 });
    advance(200);
    expect(await limiter.consume('user-1')).toMatchObject({ allowed: true, remaining: 0 });
    advance(600);
    // 3 tokens back: a cost of 3 fits, a cost of 4 waits 200 ms more.
    expect(await limiter.consume('user-1', { cost: 4 })).toMatchObject({ allowed: false, remaining: 3, retryAfterMs: 200 });
    expect(await limiter.consume('user-1', { cost: 3 })).toMatchObject({ allowed: true, remaining: 0 });
    advance(10_000);
    expect(await limiter.peek('user-1')).toMatchObject({ allowed: true, remaining: 20, resetAfterMs: 200 });
    expect(await limiter.consume('user-1', { cost: 21 })).toMatchObject({ allowed: false, retryAfterMs: Infinity });
  });

  it('token-bucket reserve mode (Guava SmoothBursty): a cost beyond the tokens borrows and waits', async () => {
    const { limiter, advance } = setup({ algorithm: 'token-bucket', capacity: 2, refillPerSecond: 2, mode: 'reserve', maxDelay: '2s' });
    // 2 tokens in the bucket, 3 borrowed at 2 per second: due in 1.5 s.
    expect(await limiter.consume('user-1', { cost: 5 })).toMatchObject({ allowed: true, delayMs: 1500, remaining: 1, limit: 6 });
    expect(await limiter.consume('user-1')).toMatchObject({ allowed: true, delayMs: 2000, remaining: 0 });
    const denied = await limiter.consume('user-1');
    expect(denied).toMatchObject({ allowed: false, retryAfterMs: 500, resetAfterMs: 3000 });
    // The denial borrowed nothing.
    advance(500);
    expect(await limiter.consume('user-1')).toMatchObject({ allowed: true, delayMs: 2000 });
    expect(await limiter.consume('user-2', { cost: 7 })).toMatchObject({ allowed: false, retryAfterMs: Infinity });
  });
});
