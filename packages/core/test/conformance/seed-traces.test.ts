import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLimiter, type Decision, type RuleSpec } from '../../src/index.js';
import { STORE_SEMANTICS, type StoreUnderTest, startBackends } from '../helpers/stores.js';

let backends: StoreUnderTest[];
let close: () => Promise<void>;

beforeAll(async () => {
  ({ stores: backends, close } = await startBackends());
});
afterAll(() => close?.());

let prefixCounter = 0;

/** A limiter on the given store, under a virtual clock the test moves. */
function setup(name: StoreUnderTest['name'], rule: RuleSpec) {
  let now = Date.UTC(2026, 5, 1, 12);
  const { store } = backends.find((b) => b.name === name)!;
  const limiter = createLimiter({ ...rule, store, clock: () => now, prefix: `seed${prefixCounter++}`, ...STORE_SEMANTICS });
  return {
    limiter,
    advance: (ms: number) => {
      now += ms;
    },
    burst: async (count: number, cost = 1): Promise<Decision[]> => {
      const decisions: Decision[] = [];
      for (let i = 0; i < count; i++) decisions.push(await limiter.consume('user-1', { cost }));
      return decisions;
    },
  };
}

const allowedFlags = (decisions: Decision[]) => decisions.map((d) => d.allowed);

describe.each(['memory', 'redis', 'cluster'] as const)('reference traces on the %s store', (name) => {
  it('gcra 10/s burst 5 (future-state GCRA): exactly 5 simultaneous requests pass, the 6th is denied', async () => {
    const { burst, limiter, advance } = setup(name, { algorithm: 'gcra', rate: 10, period: '1s', burst: 5 });
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
    const { burst } = setup(name, { qps: 10, burst: 5 });
    expect(allowedFlags(await burst(6))).toEqual([true, true, true, true, true, false]);
    const { limiter } = setup(name, { qps: 10, burst: 5 });
    expect(await limiter.consume('user-1', { cost: 6 })).toMatchObject({ allowed: false, retryAfterMs: Infinity, remaining: 5 });
    expect(await limiter.consume('user-1', { cost: 5 })).toMatchObject({ allowed: true, remaining: 0 });
  });

  it('token bucket capacity 20, 5/s (Stripe request rate limiter): bursts to capacity, then refills one token per 200 ms', async () => {
    const { burst, advance, limiter } = setup(name, { algorithm: 'token-bucket', capacity: 20, refillPerSecond: 5 });
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
    expect(await limiter.peek('user-1')).toMatchObject({ allowed: true, remaining: 19, resetAfterMs: 200 });
    expect(await limiter.consume('user-1', { cost: 21 })).toMatchObject({ allowed: false, retryAfterMs: Infinity });
  });

  it('fixed window 3 per second (Redis INCR + EXPIRE): the counter resets a window after the first request', async () => {
    const { burst, advance, limiter } = setup(name, { algorithm: 'fixed-window', limit: 3, window: '1s' });
    advance(0);
    const decisions = await burst(4);
    expect(allowedFlags(decisions)).toEqual([true, true, true, false]);
    expect(decisions[3]).toMatchObject({ remaining: 0, retryAfterMs: 1000, resetAfterMs: 1000 });
    advance(999);
    expect(await limiter.consume('user-1')).toMatchObject({ allowed: false, retryAfterMs: 1 });
    advance(1);
    // The documented boundary effect: a fresh window admits the full limit again right away.
    expect(allowedFlags(await burst(4))).toEqual([true, true, true, false]);
  });

  it('reset forgets an identity; other identities are untouched', async () => {
    const { burst, limiter } = setup(name, { qps: 1, burst: 2 });
    await burst(2);
    expect((await limiter.consume('user-2')).allowed).toBe(true);
    expect(await limiter.reset('user-1')).toMatchObject({ allowed: true, remaining: 1 });
    expect(await limiter.consume('user-1')).toMatchObject({ allowed: true, remaining: 1 });
    expect(await limiter.consume('user-2')).toMatchObject({ allowed: true, remaining: 0 });
  });

  it('a multi-limit rule commits all or nothing and reports the most restrictive limit', async () => {
    const { limiter, advance } = setup(name, {
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
});
