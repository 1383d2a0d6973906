import { VirtualClock } from '@tollgate/testing';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createConcurrencyLimiter, createLimiter, LeasingStore, MemoryStore } from '../../src/index.js';
import { DrivenStore } from '../helpers/driven-store.js';

const opened: LeasingStore[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((store) => store.close()));
});

/** A LeasingStore that would lease every key it can, in front of a counting MemoryStore on `clock`. */
function leasingEveryKey(clock: () => number) {
  const backend = new DrivenStore(new MemoryStore({ clock }));
  const store = new LeasingStore(backend, { leaseKeys: 'all', clock });
  opened.push(store);
  return { backend, store };
}

describe('limiter.wait through a LeasingStore', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'], now: Date.UTC(2026, 5, 1, 12) });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('reserves its slots in the store: gcra at 20/s lets waiters go 50 ms apart, one store call each, none from a lease', async () => {
    const { backend, store } = leasingEveryKey(Date.now);
    const limiter = createLimiter({ qps: 20, burst: 1, store, clock: Date.now });
    const begin = Date.now();
    const waits = Array.from({ length: 6 }, () => limiter.wait('job').then((decision) => ({ at: Date.now() - begin, decision })));
    await backend.drive(Promise.all(waits));
    const done = await Promise.all(waits);
    expect(done.map(({ at }) => at)).toEqual([0, 50, 100, 150, 200, 250]);
    expect(done.every(({ decision }) => decision.source === 'store')).toBe(true);
    expect(backend.calls).toBe(6);
    expect(store.heldUnits()).toBe(0);
  });
});

describe('a concurrency rule through a LeasingStore', () => {
  it('3 slots, 10 s leases: never a 4th in flight; release and expiry give slots back, every call in the store', async () => {
    const clock = new VirtualClock(Date.UTC(2026, 5, 1, 12));
    const { backend, store } = leasingEveryKey(clock.now);
    const limiter = createConcurrencyLimiter({ limit: 3, leaseTtl: '10s', store, clock: clock.now });
    const first = await limiter.acquire('user-1');
    expect(first).toMatchObject({ allowed: true, remaining: 2, resetAfterMs: 10_000, source: 'store' });
    clock.advance(1000);
    const second = await limiter.acquire('user-1');
    const third = await limiter.acquire('user-1');
    expect([second.remaining, third.remaining]).toEqual([1, 0]);
    expect(await limiter.acquire('user-1')).toMatchObject({ allowed: false, remaining: 0, retryAfterMs: 9000 });

    await limiter.release(second.lease!);
    expect(await limiter.acquire('user-1')).toMatchObject({ allowed: true, remaining: 0, source: 'store' });
    expect((await limiter.acquire('user-1')).allowed).toBe(false);
    // Nobody releases `first`: its slot comes back when its lease expires.
    clock.advance(8999);
    expect(await limiter.acquire('user-1')).toMatchObject({ allowed: false, retryAfterMs: 1 });
    clock.advance(1);
    expect(await limiter.acquire('user-1')).toMatchObject({ allowed: true, remaining: 0 });
    // Eight acquires and a release: each its own store call, nothing held here.
    expect(backend.calls).toBe(9);
    expect(store.heldUnits()).toBe(0);
  });
});
