import { VirtualClock } from '@tollgate/testing';
import { describe, expect, it } from 'vitest';
import { createLimiter, type StoreOperation, type StoreResult } from '../../src/index.js';
import { ControlledStore } from '../helpers/controlled-store.js';

function setup(failureThreshold = 3, coolDownMs = 1000) {
  const clock = new VirtualClock();
  const store = new ControlledStore();
  const log: string[] = [];
  const limiter = createLimiter({
    qps: 1000,
    store,
    clock: clock.now,
    breaker: { failureThreshold, coolDownMs },
    denyCache: false,
    events: {
      breakerOpen: (e) => log.push(`open after ${e.failures} (${e.error.message})`),
      breakerClose: (e) => log.push(`close after ${e.openForMs} ms`),
    },
  });
  return { clock, store, limiter, log };
}

describe('breaker', () => {
  it('opens after the threshold of consecutive failures and then leaves the store alone', async () => {
    const { store, limiter, log } = setup(3);
    store.mode = 'reject';
    for (let i = 0; i < 3; i++) await limiter.consume('a');
    expect(limiter.breakerState).toBe('open');
    expect(log).toEqual(['open after 3 (store call failed: connection refused)']);
    const callsWhenOpened = store.calls;
    const decisions = await Promise.all(Array.from({ length: 50 }, () => limiter.consume('a')));
    expect(store.calls).toBe(callsWhenOpened);
    expect(decisions.every((d) => d.allowed && d.source === 'policy')).toBe(true);
  });

  it('counts only consecutive failures', async () => {
    const { store, limiter } = setup(3);
    for (const mode of ['reject', 'reject', 'ok', 'reject', 'reject'] as const) {
      store.mode = mode;
      await limiter.consume('a');
    }
    expect(limiter.breakerState).toBe('closed');
  });

  it('lets exactly one probe through after the cool-down and closes when it succeeds', async () => {
    const { clock, store, limiter, log } = setup(1, 1000);
    store.mode = 'reject';
    await limiter.consume('a');
    clock.advance(999);
    await limiter.consume('a');
    expect(store.calls).toBe(1);
    clock.advance(1);
    store.mode = 'hang';
    const probe = limiter.consume('a');
    const others = await Promise.all([limiter.consume('a'), limiter.consume('b')]);
    expect(limiter.breakerState).toBe('half-open');
    expect(store.calls).toBe(2);
    expect(others.map((d) => d.source)).toEqual(['policy', 'policy']);
    store.answerHung();
    expect((await probe).source).toBe('store');
    expect(limiter.breakerState).toBe('closed');
    expect(log).toEqual(['open after 1 (store call failed: connection refused)', 'close after 1000 ms']);
    store.mode = 'ok';
    expect((await limiter.consume('a')).source).toBe('store');
  });

  it('reopens for another cool-down when the probe fails', async () => {
    const { clock, store, limiter, log } = setup(1, 1000);
    store.mode = 'reject';
    await limiter.consume('a');
    clock.advance(1000);
    await limiter.consume('a');
    expect(store.calls).toBe(2);
    expect(limiter.breakerState).toBe('open');
    clock.advance(999);
    await limiter.consume('a');
    expect(store.calls).toBe(2);
    clock.advance(1);
    store.mode = 'ok';
    expect((await limiter.consume('a')).source).toBe('store');
    expect(log).toEqual(['open after 1 (store call failed: connection refused)', 'close after 2000 ms']);
  });
});

/** Two failure domains, as a Cluster's nodes: identities starting with `down-` live on the failing one. */
class ShardedStore extends ControlledStore {
  failureDomain(identity: string): string {
    return identity.startsWith('down-') ? 'node-b' : 'node-a';
  }

  override execute(operation: StoreOperation): Promise<StoreResult> {
    if (this.failureDomain(operation.identity) === 'node-b') {
      this.calls++;
      return Promise.reject(new Error('node-b is gone'));
    }
    return super.execute(operation);
  }
}

describe('breaker per failure domain', () => {
  it('opens only for the failing domain; identities elsewhere keep store decisions', async () => {
    const clock = new VirtualClock();
    const store = new ShardedStore();
    const opened: string[] = [];
    const limiter = createLimiter({
      qps: 1000,
      store,
      clock: clock.now,
      breaker: { failureThreshold: 3, coolDownMs: 1000 },
      denyCache: false,
      onStoreError: 'closed',
      events: { breakerOpen: (e) => opened.push(e.error.message) },
    });
    for (let i = 0; i < 5; i++) expect(await limiter.consume(`down-${i}`)).toMatchObject({ source: 'policy', allowed: false });
    expect(opened).toEqual(['store call failed: node-b is gone']);
    expect(limiter.breakerState).toBe('open');
    const callsWhenOpened = store.calls;
    // The failing domain is left alone...
    expect(await limiter.consume('down-9')).toMatchObject({ source: 'policy' });
    expect(store.calls).toBe(callsWhenOpened);
    // ...while the healthy one is still asked, for every identity.
    const healthy = await Promise.all(Array.from({ length: 20 }, (_, i) => limiter.consume(`up-${i}`)));
    expect(healthy.every((d) => d.source === 'store' && d.allowed)).toBe(true);
    expect(store.calls).toBe(callsWhenOpened + 20);
  });
});
