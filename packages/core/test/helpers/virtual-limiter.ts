import { createLimiter, type Decision, type Store } from '../../src/index.js';
import { STORE_SEMANTICS } from './stores.js';
import type { TracedRule } from './trace.js';

let prefixCounter = 0;

/** A limiter on `store` under a virtual clock the test moves; each call gets its own key prefix. */
export function virtualLimiter(store: Store, rule: TracedRule, startMs = Date.UTC(2026, 5, 1, 12)) {
  let now = startMs;
  const limiter = createLimiter({ ...rule, store, clock: () => now, prefix: `vl${process.pid}-${prefixCounter++}`, ...STORE_SEMANTICS });
  return {
    limiter,
    advance: (ms: number) => {
      now += ms;
    },
    /** `count` requests one after the other, at the same instant. */
    burst: async (count: number, cost = 1): Promise<Decision[]> => {
      const decisions: Decision[] = [];
      for (let i = 0; i < count; i++) decisions.push(await limiter.consume('user-1', { cost }));
      return decisions;
    },
  };
}

export const allowedFlags = (decisions: readonly Decision[]) => decisions.map((d) => d.allowed);
