import { VirtualClock } from '@tollgate/testing';
import { describe, expect, it } from 'vitest';
import { createLimiter, MemoryStore } from '../src/index.js';

describe('MemoryStore', () => {
  it('is the default store and shares the limiter clock', async () => {
    const clock = new VirtualClock();
    const limiter = createLimiter({ qps: 1, burst: 1, clock: clock.now });
    expect((await limiter.consume('a')).allowed).toBe(true);
    expect((await limiter.consume('a')).allowed).toBe(false);
    clock.advance(1000);
    expect((await limiter.consume('a')).allowed).toBe(true);
  });

  it('keeps the limiters sharing it apart, whichever decided last', async () => {
    const store = new MemoryStore();
    const hourly = createLimiter({ perHour: 3, store, prefix: 'hourly' });
    const daily = createLimiter({ perDay: 5, store, prefix: 'daily' });
    const remaining = [];
    for (let i = 0; i < 3; i++) remaining.push((await hourly.consume('a')).remaining, (await daily.consume('a')).remaining);
    expect(remaining).toEqual([2, 4, 1, 3, 0, 2]);
  });

  it('never holds more than maxKeys identities; the longest-held go first', async () => {
    const clock = new VirtualClock();
    const store = new MemoryStore({ clock: clock.now, maxKeys: 100 });
    const limiter = createLimiter({ perHour: 5, store });
    for (let i = 0; i < 1000; i++) await limiter.consume(`ip-${i}`);
    expect(store.size).toBe(100);
    expect(await limiter.peek('ip-999')).toMatchObject({ remaining: 3 });
    expect(await limiter.peek('ip-0')).toMatchObject({ remaining: 4 });
  });

  it('keeps every limit of a rule in one entry per identity, kept as long as its longest limit', async () => {
    const clock = new VirtualClock();
    const store = new MemoryStore({ clock: clock.now });
    const limiter = createLimiter({ limits: [{ perDay: 3 }, { perMinute: 2 }, { qps: 1, burst: 1 }], store });
    for (const identity of ['a', 'b', 'a']) await limiter.consume(identity);
    expect(store.size).toBe(2);
    clock.advance(120_000);
    // Past the qps and perMinute TTLs, the entry still holds what the day limit admitted.
    expect((await limiter.consume('a')).limits.map((limit) => limit.remaining)).toEqual([1, 1, 0]);
    expect(store.size).toBe(2);
  });

  it('evicts in first-written order: a returning identity is the newest, reset ones are skipped', async () => {
    const store = new MemoryStore({ maxKeys: 3 });
    const limiter = createLimiter({ perHour: 5, store });
    const held = async () => {
      const names = ['a', 'b', 'c', 'd', 'e', 'f'];
      const peeks = await Promise.all(names.map((name) => limiter.peek(name)));
      return names.filter((_, i) => peeks[i]!.remaining < 4);
    };
    for (const name of ['a', 'b', 'c', 'd']) await limiter.consume(name);
    expect(await held()).toEqual(['b', 'c', 'd']);
    await limiter.consume('b'); // an update keeps b's place
    await limiter.consume('a');
    expect(await held()).toEqual(['a', 'c', 'd']); // b was evicted for a
    await limiter.reset('c');
    await limiter.consume('e');
    await limiter.consume('f');
    expect(await held()).toEqual(['a', 'e', 'f']); // d went, c was already gone
    expect(store.size).toBe(3);
    for (const name of ['a', 'e', 'f']) await limiter.reset(name);
    for (const name of ['b', 'c', 'd', 'a']) await limiter.consume(name);
    expect(await held()).toEqual(['a', 'c', 'd']);
  });

  it('sweeps expired identities as traffic flows, without a timer per key', async () => {
    const clock = new VirtualClock();
    const store = new MemoryStore({ clock: clock.now });
    const limiter = createLimiter({ qps: 10, burst: 10, store });
    const timersBefore = process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
    for (let i = 0; i < 5000; i++) await limiter.consume(`old-${i}`);
    expect(store.size).toBe(5000);
    expect(process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length).toBe(timersBefore);
    clock.advance(1000);
    for (let i = 0; i < 5000; i++) await limiter.consume(`new-${i}`);
    // Each write checks two entries, so the 5000 expired ones are gone by now.
    expect(store.size).toBe(5000);
  });

  it('treats an expired entry as absent even before it is swept', async () => {
    const clock = new VirtualClock();
    const store = new MemoryStore({ clock: clock.now });
    const limiter = createLimiter({ algorithm: 'fixed-window', limit: 1, window: '1s', store });
    await limiter.consume('a');
    clock.advance(1000);
    expect(await limiter.consume('a')).toMatchObject({ allowed: true, remaining: 0, resetAfterMs: 1000 });
  });

  it('rejects a bad maxKeys', () => {
    expect(() => new MemoryStore({ maxKeys: 0 })).toThrow(/maxKeys/);
  });
});
