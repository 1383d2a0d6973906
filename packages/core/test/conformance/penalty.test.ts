import { describe, expect, it } from 'vitest';
import { useBackends } from '../helpers/per-file-servers.js';
import { callsOf } from '../helpers/trace.js';
import { allowedFlags, virtualLimiter } from '../helpers/virtual-limiter.js';

const storeNamed = useBackends();

// A penalty charges even beyond the limit and is never refused; it reports what a request of cost
// 1 would now get, as a refund does.
describe.each(['memory', 'redis', 'cluster'] as const)('penalty on the %s store', (name) => {
  const setup = (rule: Parameters<typeof virtualLimiter>[1]) => {
    const limited = virtualLimiter(storeNamed(name), rule);
    return { ...limited, penalty: (cost: number) => callsOf(limited.limiter).penalty('user-1', cost) };
  };

  it('gcra: the TAT moves on by the cost from now, past the burst', async () => {
    const { limiter, penalty, advance } = setup({ qps: 10, burst: 5 });
    await limiter.consume('user-1', { cost: 4 });
    // TAT = now + 400 ms, then + 700 ms: 600 ms beyond what the burst of 5 tolerates.
    expect(await penalty(7)).toMatchObject({ allowed: false, remaining: 0, retryAfterMs: 700, resetAfterMs: 1100 });
    advance(699);
    expect((await limiter.consume('user-1')).allowed).toBe(false);
    advance(1);
    expect(await limiter.consume('user-1')).toMatchObject({ allowed: true, remaining: 0 });
  });

  it('token bucket: the bucket goes into debt, refilled as always', async () => {
    const { limiter, penalty, advance } = setup({ algorithm: 'token-bucket', capacity: 5, refillPerSecond: 1 });
    await limiter.consume('user-1', { cost: 2 });
    expect(await penalty(6)).toMatchObject({ allowed: false, remaining: 0, retryAfterMs: 4000, resetAfterMs: 8000 });
    advance(3999);
    expect((await limiter.consume('user-1')).allowed).toBe(false);
    advance(1);
    expect(await limiter.consume('user-1')).toMatchObject({ allowed: true, remaining: 0 });
  });

  it('fixed window: the count goes past the limit until the window ends; a penalty opens a window', async () => {
    const { limiter, penalty, advance } = setup({ algorithm: 'fixed-window', limit: 3, window: '1s' });
    expect(await penalty(5)).toMatchObject({ allowed: false, remaining: 0, retryAfterMs: 1000, resetAfterMs: 1000 });
    advance(600);
    expect(await limiter.refund('user-1', { cost: 2 })).toMatchObject({ allowed: false, remaining: 0 });
    // Back to the limit of 3: a request of cost 1 would pass, leaving 0.
    expect(await limiter.refund('user-1', { cost: 1 })).toMatchObject({ allowed: true, remaining: 0, resetAfterMs: 400 });
    advance(400);
    expect(allowedFlags(await virtualBurst(limiter, 4))).toEqual([true, true, true, false]);
  });

  it('sliding-window-counter: the current count goes past the limit', async () => {
    const { limiter, penalty, advance } = setup({ algorithm: 'sliding-window-counter', limit: 4, window: '1s' });
    advance(-(Date.UTC(2026, 5, 1, 12) % 1000));
    expect(await penalty(8)).toMatchObject({ allowed: false, remaining: 0 });
    advance(1000);
    // The previous window's 8 weigh 8 × (1000 - elapsed) / 1000: below 4 once more than half of it has slid out.
    expect((await limiter.consume('user-1')).allowed).toBe(false);
    advance(626);
    expect(await limiter.consume('user-1')).toMatchObject({ allowed: true, remaining: 0 });
  });

  it('sliding-window-log: entries beyond the limit, at most the limit of them', async () => {
    const { limiter, penalty, advance } = setup({ algorithm: 'sliding-window-log', limit: 3, window: '1s' });
    await limiter.consume('user-1');
    advance(100);
    expect(await penalty(50)).toMatchObject({ allowed: false, remaining: 0, retryAfterMs: 1000, resetAfterMs: 1000 });
    // The 3 entries kept of the penalty all slide out a window after it: a refund of 3 removes them.
    expect(await limiter.refund('user-1', { cost: 3 })).toMatchObject({ allowed: true, remaining: 1 });
  });

  it('leaky bucket (policing): the level rises past the burst and drains at the rate', async () => {
    const { limiter, penalty, advance } = setup({ algorithm: 'leaky-bucket', rate: 10, period: '1s', burst: 5 });
    expect(await penalty(8)).toMatchObject({ allowed: false, remaining: 0, retryAfterMs: 400, resetAfterMs: 800 });
    advance(400);
    expect(await limiter.consume('user-1')).toMatchObject({ allowed: true, remaining: 0 });
  });

  it('leaky bucket (shaping): the departure slots beyond maxDelay are taken', async () => {
    const { limiter, penalty, advance } = setup({ algorithm: 'leaky-bucket', mode: 'shaping', rate: 10, period: '1s', maxDelay: 200 });
    expect(await penalty(6)).toMatchObject({ allowed: false, remaining: 0, retryAfterMs: 400, resetAfterMs: 600 });
    advance(400);
    expect(await limiter.consume('user-1')).toMatchObject({ allowed: true, delayMs: 200, remaining: 0 });
  });

  it('a concurrency limit counts requests in flight, not work: it reports a peek and changes nothing', async () => {
    const { limiter, penalty } = setup({ limits: [{ name: 'slots', algorithm: 'concurrency', limit: 2, leaseTtl: '1m' }] });
    expect(await penalty(5)).toMatchObject({ allowed: true, remaining: 1 });
    expect(allowedFlags([await limiter.consume('user-1'), await limiter.consume('user-1')])).toEqual([true, true]);
  });

  it('a rule of several limits is charged on every one, the verdict reported as a peek', async () => {
    const { limiter, penalty } = setup({
      limits: [
        { name: 'per-second', algorithm: 'fixed-window', limit: 10, window: '1s' },
        { name: 'per-minute', algorithm: 'fixed-window', limit: 100, window: '1m' },
      ],
    });
    const decision = await penalty(12);
    expect(decision).toMatchObject({ allowed: false, limitName: 'per-second', retryAfterMs: 1000 });
    expect(decision.limits.map((limit) => limit.remaining)).toEqual([0, 87]);
    expect((await limiter.consume('user-1')).allowed).toBe(false);
  });
});

async function virtualBurst(limiter: ReturnType<typeof virtualLimiter>['limiter'], count: number) {
  const decisions = [];
  for (let i = 0; i < count; i++) decisions.push(await limiter.consume('user-1'));
  return decisions;
}

describe.each(['memory', 'redis', 'cluster'] as const)('a huge penalty on the %s store', (name) => {
  // The debt of a token bucket is 50 years; the next request waits for its own token (1 s) too.
  // Warm-up counts its permits at the stable rate: the stored ones, dearer, may add up to its warmup.
  it.each([
    ['gcra', { qps: 10 }, 0],
    ['token-bucket', { algorithm: 'token-bucket', capacity: 5, refillPerSecond: 1 }, 1000],
    ['leaky-bucket', { algorithm: 'leaky-bucket', rate: 10 }, 0],
    ['leaky-bucket (shaping)', { algorithm: 'leaky-bucket', mode: 'shaping', rate: 10, maxDelay: '1s' }, 0],
    ['warm-up', { algorithm: 'warm-up', rate: 10, warmup: '10s' }, 10_000],
  ] as const)('%s: charges at most 50 years ahead, twice over, and the store keeps deciding', async (_, rule, extraMs) => {
    const { limiter } = virtualLimiter(storeNamed(name), rule);
    const fiftyYearsMs = 50 * 365 * 86_400_000;
    for (let i = 0; i < 2; i++) {
      const decision = await callsOf(limiter).penalty('user-1', Number.MAX_SAFE_INTEGER);
      expect(decision.source).toBe('store');
      expect(decision.retryAfterMs).toBeGreaterThan(fiftyYearsMs - 2000);
      expect(decision.retryAfterMs).toBeLessThanOrEqual(fiftyYearsMs + extraMs);
    }
  });
});
