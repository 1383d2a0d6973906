import { describe, expect, it } from 'vitest';
import { createLimiter, MemoryStore } from '../src/index.js';
import { ControlledStore } from './helpers/controlled-store.js';

const RULE = { algorithm: 'fixed-window', limit: 10, window: '1m' } as const;

describe('a hold answered without the store', () => {
  it.each([
    ['the failure mode', 'open' as const],
    ['a fallback limiter', { fallback: createLimiter({ ...RULE, store: new MemoryStore() }) }],
  ])('admitted by %s, charges nothing here and its settle changes nothing', async (_, onStoreError) => {
    const store = new ControlledStore();
    const limiter = createLimiter({ ...RULE, store, onStoreError, breaker: false, logger: { warn() {}, error() {} } });
    store.mode = 'reject';
    const hold = await limiter.hold('user-1', { cost: 4 });
    expect(hold.decision.allowed).toBe(true);
    expect(hold.status).toBe('uncharged');
    store.mode = 'ok';
    const calls = store.calls;
    // A peek: nothing given back to the store, which never charged the hold.
    expect(await hold.settle(0)).toMatchObject({ allowed: true, remaining: 10 });
    expect(store.calls).toBe(calls + 1);
    expect((await limiter.consume('user-1', { cost: 10 })).allowed).toBe(true);
  });
});
