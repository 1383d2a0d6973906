import { describe, expect, it } from 'vitest';
import { gcra } from '../src/algorithms/gcra/model.js';
import { fieldPath } from '../src/algorithms/spec-fields.js';
import type { AnyAlgorithm } from '../src/algorithms/types.js';
import { type BoundLimit, MemoryStore, type StoreOperation } from '../src/index.js';
import { keyspacesFor } from '../src/keys.js';

describe('an algorithm without refund', () => {
  it('gives nothing back: a refund reports a peek and leaves the state as it was', () => {
    const { refund: _, ...withoutRefund } = gcra;
    const algorithm: AnyAlgorithm = withoutRefund;
    const params = algorithm.parse({ rate: 10, burst: 3 }, fieldPath('spec'));
    const limit: BoundLimit = { name: 'default', algorithm, params, unit: 'requests', luaArgs: [] };
    const store = new MemoryStore();
    const keyspaces = keyspacesFor('test', ['default:gcra']);
    const operation = (kind: StoreOperation['kind'], cost: number): StoreOperation => ({
      kind,
      identity: 'k',
      keyspaces,
      limits: [limit],
      cost,
      token: '',
      nowMs: 1_000_000,
    });
    const outcome = (kind: StoreOperation['kind'], cost: number) => {
      const { allowed, remaining, resetAfterMs, retryAfterMs, delayMs } = store.executeSync(operation(kind, cost)).outcomes[0]!;
      return { allowed, remaining, resetAfterMs, retryAfterMs, delayMs };
    };
    outcome('consume', 2);
    const peek = outcome('peek', 1);
    expect(peek).toMatchObject({ allowed: true, remaining: 0 });
    expect(outcome('refund', 2)).toEqual(peek);
    expect(outcome('peek', 1)).toEqual(peek);
  });
});
