import { VirtualClock } from '@tollgate/testing';
import { describe, expect, it } from 'vitest';
import { createLimiter, MemoryStore } from '../src/index.js';
import { ControlledStore } from './helpers/controlled-store.js';

const START = Date.UTC(2026, 0, 1);

describe('decision.decidedAtMs', () => {
  it('is the limiter clock when the memory store decides', async () => {
    const clock = new VirtualClock(START);
    const limiter = createLimiter({ perMinute: 1, clock: clock.now });
    expect((await limiter.consume('a')).decidedAtMs).toBe(START);
    clock.advance(1500);
    expect((await limiter.consume('a')).decidedAtMs).toBe(START + 1500);
  });

  it("is the memory store's own time when only the store has a clock", async () => {
    const clock = new VirtualClock(START);
    const limiter = createLimiter({ perMinute: 1, store: new MemoryStore({ clock: clock.now }) });
    expect((await limiter.consume('a')).decidedAtMs).toBe(START);
    clock.advance(2500);
    expect((await limiter.consume('a')).decidedAtMs).toBe(START + 2500);
  });

  it('is read once another store has answered', async () => {
    const clock = new VirtualClock(START);
    const store = new ControlledStore(new MemoryStore({ clock: clock.now }));
    store.mode = 'hang';
    const limiter = createLimiter({ perMinute: 1, store, clock: clock.now, timeout: 60_000 });
    const decision = limiter.consume('a');
    clock.advance(700);
    store.answerHung();
    expect((await decision).decidedAtMs).toBe(START + 700);
  });

  it('is the time of the lookup for a cached denial, and of the failure for a policy answer', async () => {
    const clock = new VirtualClock(START);
    const store = new ControlledStore(new MemoryStore({ clock: clock.now }));
    const limiter = createLimiter({ algorithm: 'fixed-window', limit: 1, window: 60_000, store, clock: clock.now, onStoreError: 'closed' });
    await limiter.consume('a');
    expect(await limiter.consume('a')).toMatchObject({ source: 'store', decidedAtMs: START });
    clock.advance(300);
    expect(await limiter.consume('a')).toMatchObject({ source: 'cache', decidedAtMs: START + 300 });
    store.mode = 'reject';
    clock.advance(200);
    expect(await limiter.consume('b')).toMatchObject({ source: 'policy', decidedAtMs: START + 500 });
  });
});
