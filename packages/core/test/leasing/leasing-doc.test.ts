import { markdownSample, VirtualClock } from '@tollgate/testing';
import { describe, expect, it } from 'vitest';
import { createLimiter, LeasingStore, MemoryStore } from '../../src/index.js';

const README = new URL('../../README.md', import.meta.url);

describe('packages/core/README.md, LeasingStore', () => {
  it('prints the decisions its lease-decisions sample shows', async () => {
    const clock = new VirtualClock(0);
    const store = new LeasingStore(new MemoryStore({ clock: clock.now }), { leaseKeys: 'all', leaseTraffic: 100, clock: clock.now });
    const limiter = createLimiter({ algorithm: 'fixed-window', limit: 100, window: '1s', store, clock: clock.now });
    const printed: string[] = [];
    for (const atMs of [0, 0, 0, 40, 60, 150]) {
      clock.set(atMs);
      const { source, allowed, remaining, resetAfterMs, charge } = await limiter.consume('partner-api');
      printed.push(
        `+${atMs} ms: ${source} allowed=${allowed} remaining=${remaining} resetAfterMs=${resetAfterMs} charged at +${charge?.atMs} ms`,
      );
    }
    await store.close();
    expect(printed).toEqual(markdownSample(README, 'lease-decisions'));
  });
});
