import type { BoundLimit } from '../stores/store.js';

/**
 * A rule's limits as a waiter sends them: every limit that can hand out future slots in reserve
 * mode with the waiter's budget as its longest delay, so the store gives the waiter its slot
 * in one call. The arrays are kept per budget: a store batches the operations of one limits
 * array together, and waiters mostly share a few budgets.
 */
export class ReservingLimits {
  /** True when every limit can reserve: one store call gives a waiter its slot or tells it the wait is too long. */
  readonly all: boolean;
  private readonly byBudget = new Map<number, readonly BoundLimit[]>();
  private static readonly KEPT = 32;

  constructor(private readonly limits: readonly BoundLimit[]) {
    this.all = limits.every((limit) => limit.algorithm.reserving?.(limit.params, 1) !== undefined);
  }

  /** The limits with `maxDelayMs` as the longest delay a reserving limit may give. */
  within(maxDelayMs: number): readonly BoundLimit[] {
    let bound = this.byBudget.get(maxDelayMs);
    if (bound !== undefined) return bound;
    bound = this.limits.map((limit) => {
      const params = limit.algorithm.reserving?.(limit.params, maxDelayMs);
      if (params === undefined) return limit;
      return { ...limit, params, luaArgs: [limit.algorithm.name, ...limit.algorithm.luaArgs(params).map(String)] };
    });
    if (this.byBudget.size >= ReservingLimits.KEPT) this.byBudget.clear();
    this.byBudget.set(maxDelayMs, bound);
    return bound;
  }
}
