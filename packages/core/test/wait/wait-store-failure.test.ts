import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createLimiter } from '../../src/index.js';
import { ControlledStore } from '../helpers/controlled-store.js';

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'], now: Date.UTC(2026, 5, 1, 12) });
});
afterEach(() => {
  vi.useRealTimers();
});

describe('limiter.wait while the store fails', () => {
  const rule = { qps: 20, burst: 1 } as const;

  it("'closed': waits out the breaker's cool-down and is admitted once the store answers again", async () => {
    const store = new ControlledStore();
    const limiter = createLimiter({
      ...rule,
      store,
      clock: Date.now,
      onStoreError: 'closed',
      breaker: { failureThreshold: 1, coolDownMs: 500 },
    });
    store.mode = 'reject';
    const start = Date.now();
    let admittedAt: number | undefined;
    const waiting = limiter.wait('job').then((d) => {
      admittedAt = Date.now() - start;
      return d;
    });
    await vi.advanceTimersByTimeAsync(200);
    expect(admittedAt).toBeUndefined();
    store.mode = 'ok';
    await vi.advanceTimersByTimeAsync(400);
    expect((await waiting).source).toBe('store');
    expect(admittedAt).toBe(500);
    // One failed call, then the probe once the breaker let it through: no hammering meanwhile.
    expect(store.calls).toBe(2);
  });

  it("'closed': a cool-down past maxWait rejects at once", async () => {
    const store = new ControlledStore();
    store.mode = 'reject';
    const limiter = createLimiter({
      ...rule,
      store,
      clock: Date.now,
      onStoreError: 'closed',
      breaker: { failureThreshold: 1, coolDownMs: 5000 },
    });
    await expect(limiter.wait('job', { maxWait: 1000 })).rejects.toMatchObject({ code: 'ERR_TOLLGATE_WAIT_TIMEOUT' });
  });

  it("'open': lets the job go at once", async () => {
    const store = new ControlledStore();
    store.mode = 'reject';
    const limiter = createLimiter({ ...rule, store, clock: Date.now, onStoreError: 'open' });
    expect(await limiter.wait('job')).toMatchObject({ allowed: true, source: 'policy' });
  });
});
