import { type RedisTarget, startRedis, VirtualClock } from '@tollgate/testing';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CreateLimiterOptions, createLimiter, type Decision, MemoryStore, RedisStore, type RuleSpec } from '../../src/index.js';
import { driverCalls } from '../helpers/command-stats.js';
import { ControlledStore } from '../helpers/controlled-store.js';

const withoutSource = ({ source, ...rest }: Decision) => rest;

/** The same rule twice: with the deny cache over a counting store, and a plain reference. */
function pair(spec: RuleSpec, options: Partial<CreateLimiterOptions> = {}) {
  const clock = new VirtualClock();
  const store = new ControlledStore(new MemoryStore({ clock: clock.now }));
  const cached = createLimiter({ ...spec, store, clock: clock.now, ...options } as CreateLimiterOptions);
  const reference = createLimiter({ ...spec, store: new MemoryStore({ clock: clock.now }), clock: clock.now } as CreateLimiterOptions);
  return { clock, store, cached, reference };
}

describe('deny cache', () => {
  it.each([
    ['gcra', { qps: 2, burst: 3 }],
    ['token-bucket', { algorithm: 'token-bucket', capacity: 3, refillAmount: 1, refillInterval: 700 }],
    ['fixed-window', { algorithm: 'fixed-window', limit: 3, window: 2000 }],
  ] as [string, RuleSpec][])('%s: answers cached denials exactly as the store would, without calling it', async (_name, spec) => {
    const { clock, store, cached, reference } = pair(spec);
    let fromCache = 0;
    // A client hammering every 50 ms for 5 s.
    for (let t = 0; t < 5000; t += 50) {
      const callsBefore = store.calls;
      const got = await cached.consume('abuser');
      const want = await reference.consume('abuser');
      expect(withoutSource(got)).toEqual(withoutSource(want));
      if (got.source === 'cache') {
        fromCache++;
        expect(store.calls).toBe(callsBefore);
        expect(got.remaining).toBe(0);
      } else {
        expect(got.source).toBe('store');
      }
      clock.advance(50);
    }
    expect(fromCache).toBeGreaterThan(50);
  });

  it('differs by at most 1 ms where the store itself rounds a fractional refill rate', async () => {
    const { clock, cached, reference } = pair({ algorithm: 'token-bucket', capacity: 1, refillPerSecond: 1 / 3 });
    let fromCache = 0;
    for (let t = 0; t < 6000; t += 191) {
      const got = await cached.consume('a');
      const want = await reference.consume('a');
      expect([got.allowed, got.remaining]).toEqual([want.allowed, want.remaining]);
      expect(Math.abs(want.retryAfterMs - got.retryAfterMs)).toBeLessThanOrEqual(1);
      if (got.source === 'cache') fromCache++;
      clock.advance(191);
    }
    expect(fromCache).toBeGreaterThan(20);
  });

  it('expires at the time the store gave: the next request goes to the store and passes', async () => {
    const { clock, store, cached } = pair({ algorithm: 'fixed-window', limit: 1, window: 1000 });
    await cached.consume('a');
    const denied = await cached.consume('a');
    expect(denied).toMatchObject({ allowed: false, source: 'store', retryAfterMs: 1000 });
    clock.advance(998);
    expect(await cached.consume('a')).toMatchObject({ allowed: false, source: 'cache', retryAfterMs: 2, resetAfterMs: 2 });
    // The last millisecond goes to the store, so its own rounding can never be outlasted.
    clock.advance(1);
    expect(await cached.consume('a')).toMatchObject({ allowed: false, source: 'store', retryAfterMs: 1 });
    const calls = store.calls;
    clock.advance(1);
    expect(await cached.consume('a')).toMatchObject({ allowed: true, source: 'store' });
    expect(store.calls).toBe(calls + 1);
  });

  it('keeps identities apart and forgets an identity on reset', async () => {
    const { store, cached } = pair({ algorithm: 'fixed-window', limit: 1, window: 60_000 });
    await cached.consume('a');
    await cached.consume('a');
    expect((await cached.consume('a')).source).toBe('cache');
    expect(await cached.consume('b')).toMatchObject({ allowed: true, source: 'store' });
    await cached.reset('a');
    const calls = store.calls;
    expect(await cached.consume('a')).toMatchObject({ allowed: true, source: 'store' });
    expect(store.calls).toBe(calls + 1);
  });

  it('sends requests of cost > 1 and peeks to the store', async () => {
    const { store, cached } = pair({ qps: 1, burst: 1 });
    await cached.consume('a');
    await cached.consume('a');
    const calls = store.calls;
    expect((await cached.consume('a', { cost: 1 })).source).toBe('cache');
    expect((await cached.consume('a', { cost: 2 })).source).toBe('store');
    expect((await cached.peek('a')).source).toBe('store');
    expect(store.calls).toBe(calls + 2);
  });

  it('repeats a multi-limit denial with the reported limit exact', async () => {
    const { clock, cached, reference } = pair({
      limits: [
        { qps: 5, burst: 2 },
        { algorithm: 'fixed-window', limit: 4, window: 10_000 },
      ],
    });
    for (let t = 0; t < 3000; t += 100) {
      const got = await cached.consume('a');
      const want = await reference.consume('a');
      const { limits: _a, ...gotTop } = withoutSource(got);
      const { limits: _b, ...wantTop } = withoutSource(want);
      expect(gotTop).toEqual(wantTop);
      clock.advance(100);
    }
  });

  it('holds at most maxEntries identities', async () => {
    const { store, cached } = pair({ algorithm: 'fixed-window', limit: 1, window: 60_000 }, { denyCache: { maxEntries: 2 } });
    for (const key of ['a', 'b', 'c']) {
      await cached.consume(key);
      await cached.consume(key);
    }
    const calls = store.calls;
    expect((await cached.consume('c')).source).toBe('cache');
    expect((await cached.consume('b')).source).toBe('cache');
    expect((await cached.consume('a')).source).toBe('store');
    expect(store.calls).toBe(calls + 1);
  });

  it('is off with denyCache: false, and by default on a MemoryStore', async () => {
    const { store, cached } = pair({ qps: 1, burst: 1 }, { denyCache: false });
    for (let i = 0; i < 5; i++) expect((await cached.consume('a')).source).toBe('store');
    expect(store.calls).toBe(5);
    const memory = createLimiter({ qps: 1, burst: 1 });
    for (let i = 0; i < 3; i++) expect((await memory.consume('a')).source).toBe('store');
  });
});

describe('deny cache on Redis', () => {
  let target: RedisTarget;
  let client: Redis;
  beforeAll(async () => {
    target = await startRedis();
    client = new Redis(target.url);
  });
  afterAll(async () => {
    await client?.quit();
    await target?.close();
  });

  async function scriptCalls(): Promise<number> {
    const stats = await client.info('commandstats');
    return driverCalls(stats);
  }

  it('makes no Redis call for a denied identity until its retry time', async () => {
    const clock = new VirtualClock();
    const store = new RedisStore({ client, clock: clock.now });
    const limiter = createLimiter({ perMinute: 5, store, clock: clock.now, prefix: `dc${process.pid}` });
    const before = await scriptCalls();
    const decisions: Decision[] = [];
    for (let i = 0; i < 200; i++) decisions.push(await limiter.consume('abuser'));
    expect(decisions.filter((d) => d.allowed)).toHaveLength(5);
    expect(decisions.filter((d) => d.source === 'cache')).toHaveLength(194);
    expect((await scriptCalls()) - before).toBe(6);
    clock.advance(decisions[5]!.retryAfterMs);
    expect(await limiter.consume('abuser')).toMatchObject({ allowed: true, source: 'store' });
    expect((await scriptCalls()) - before).toBe(7);
  });
});
