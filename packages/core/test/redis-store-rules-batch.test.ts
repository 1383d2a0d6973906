import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLimiter } from '../src/index.js';
import { STORE_SEMANTICS, type StoreUnderTest, startBackends } from './helpers/stores.js';

let backends: StoreUnderTest[];
let close: () => Promise<void>;
beforeAll(async () => {
  ({ stores: backends, close } = await startBackends());
});
afterAll(() => close?.());

describe.each(['redis', 'cluster'] as const)('one %s script call carrying the operations of several limiters', (name) => {
  it('decides each by its own rule', async () => {
    const { store } = backends.find((b) => b.name === name)!;
    const now = Date.UTC(2026, 5, 1, 12);
    const make = (qps: number, prefix: string) => createLimiter({ qps, burst: 1, store, clock: () => now, prefix, ...STORE_SEMANTICS });
    const fast = make(20, `batch-fast-${Date.now()}`);
    const slow = make(5, `batch-slow-${Date.now()}`);
    // Same tick, same identity (same cluster slot): one batch with two rules.
    const decisions = await Promise.all([fast.consume('k'), slow.consume('k'), fast.consume('k'), slow.consume('k')]);
    expect(decisions.map((d) => [d.source, d.allowed, d.retryAfterMs])).toEqual([
      ['store', true, 0],
      ['store', true, 0],
      ['store', false, 50],
      ['store', false, 200],
    ]);
  });
});
