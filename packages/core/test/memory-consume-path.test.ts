import { VirtualClock } from '@tollgate/testing';
import { describe, expect, it } from 'vitest';
import { createLimiter, type Decision, type LimitSpec, MemoryStore, type Store } from '../src/index.js';
import { consumeNowOf } from '../src/limiter.js';

/**
 * A single-limit consume on the memory store is decided without an operation or StoreResult (see
 * `MemoryStore.consumeOne`); behind any other store the same MemoryStore answers operations, folded
 * by `toDecision`. Both must give the same decisions, field for field.
 */
const RULES: Record<string, LimitSpec> = {
  gcra: { algorithm: 'gcra', rate: 2, period: '1s', burst: 3 },
  'gcra in reserve mode': { algorithm: 'gcra', rate: 2, period: '1s', burst: 2, mode: 'reserve', maxDelay: '1s' },
  'fixed window': { algorithm: 'fixed-window', limit: 3, window: '1s' },
  'token bucket': { algorithm: 'token-bucket', capacity: 3, refillPerSecond: 2 },
  'leaky bucket': { algorithm: 'leaky-bucket', rate: 2, burst: 3 },
};

/** The same MemoryStore behind a store that is not one: the limiter sends it operations (no deny cache: see `trace`). */
function behindOperations(memory: MemoryStore): Store {
  return { execute: (operation) => memory.execute(operation) };
}

async function trace(rule: LimitSpec, wrap: (memory: MemoryStore) => Store): Promise<Decision[]> {
  const clock = new VirtualClock();
  const store = wrap(new MemoryStore({ clock: clock.now }));
  // Any other store gets a deny cache by default, which would answer some denials itself.
  const limiter = createLimiter({ ...rule, clock: clock.now, store, denyCache: false });
  const decisions: Decision[] = [];
  for (let i = 0; i < 24; i++) {
    decisions.push(await limiter.consume(i % 5 === 0 ? 'b' : 'a', i % 7 === 3 ? { cost: 2 } : undefined));
    clock.advance(i % 4 === 0 ? 350 : 40);
  }
  // The refund of an admitted decision gives back what its charge holds: the charge is the same too.
  const admitted = decisions.find((decision) => decision.allowed)!;
  decisions.push(await limiter.refund('a', { charge: admitted }));
  return decisions;
}

describe('a single-limit consume on the memory store', () => {
  for (const [name, rule] of Object.entries(RULES)) {
    it(`decides as the memory store answering operations does: ${name}`, async () => {
      const direct = await trace(rule, (memory) => memory);
      expect(direct.some((decision) => !decision.allowed)).toBe(true);
      const folded = await trace(rule, behindOperations);
      expect(direct).toEqual(folded);
      expect(JSON.stringify(direct)).toBe(JSON.stringify(folded));
    });
  }

  it('decides as consume does when decided at once (consumeNowOf)', async () => {
    const clock = new VirtualClock();
    const options = { ...RULES['gcra in reserve mode']!, clock: clock.now };
    const now = consumeNowOf(createLimiter({ ...options, store: new MemoryStore({ clock: clock.now }) }))!;
    const later = createLimiter({ ...options, store: new MemoryStore({ clock: clock.now }) });
    for (let i = 0; i < 8; i++) {
      expect(now('a')).toEqual(await later.consume('a'));
      clock.advance(100);
    }
  });
});
