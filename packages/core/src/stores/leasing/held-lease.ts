import type { Outcome } from '../../algorithms/types.js';
import type { BoundLimit, StoreOperation, StoreResult } from '../store.js';

/**
 * Units of one key charged to the store at once by a consume of `units` (the lease), spent by
 * later consumes of this process until `expiresAtMs` (local time).
 */
export class HeldLease {
  /** Units not yet spent. */
  private left: number;
  private readonly leased: { readonly token: string };

  constructor(
    /** The lease's own consume, as sent: its refund gives back what is left. */
    private readonly operation: StoreOperation,
    /** The store's answer to it: outcomes after all its units were taken. */
    private readonly outcomes: readonly Outcome[],
    /** When the store charged it, on the store's timeline. */
    readonly atMs: number,
    /** Local time it was sent at: outcomes count from here. */
    private readonly sentAtMs: number,
    readonly expiresAtMs: number,
  ) {
    this.left = operation.cost;
    this.leased = { token: operation.token };
  }

  get limits(): readonly BoundLimit[] {
    return this.operation.limits;
  }

  get token(): string {
    return this.operation.token;
  }

  /** Whether the lease was decided on the caller's clock (`nowMs` sent): its refund is too. */
  get hasClientClock(): boolean {
    return this.operation.nowMs !== undefined;
  }

  /** Units charged and not yet spent. */
  get unspent(): number {
    return this.left;
  }

  /** A consume of `cost` answered from the lease, or undefined when it holds too little or has expired. */
  take(cost: number, nowMs: number): StoreResult | undefined {
    if (cost > this.left || nowMs >= this.expiresAtMs) return undefined;
    this.left -= cost;
    return { committed: true, outcomes: this.outcomesAt(nowMs), decidedAtMs: this.atMs, leased: this.leased };
  }

  /** Takes back `units` a refund of a decision it answered gave back (never more than it spent). */
  restore(units: number, nowMs: number): StoreResult {
    this.left = Math.min(this.operation.cost, this.left + units);
    return { committed: false, outcomes: this.outcomesAt(nowMs), decidedAtMs: this.atMs };
  }

  /**
   * The refund that gives back what is left, bounded by the lease's charge: nothing comes back
   * once the window, period or bucket state it charged has passed. Undefined when all was spent.
   */
  giveBack(nowMs: number | undefined): StoreOperation | undefined {
    const { operation, left } = this;
    if (left === 0) return undefined;
    this.left = 0;
    const charge = { atMs: this.atMs, cost: operation.cost, token: operation.token };
    return { ...operation, kind: 'refund', cost: left, token: '', nowMs, charge };
  }

  /**
   * What each limit reports now: the store's answer after the lease, with its unspent units
   * counted as remaining, and the time to reset counted down since the lease was sent.
   */
  private outcomesAt(nowMs: number): Outcome[] {
    const elapsedMs = nowMs - this.sentAtMs;
    const { outcomes, left } = this;
    const now: Outcome[] = [];
    for (const { remaining, resetAfterMs } of outcomes) {
      now.push({
        allowed: true,
        remaining: remaining + left,
        resetAfterMs: Math.max(0, resetAfterMs - elapsedMs),
        retryAfterMs: 0,
        delayMs: 0,
      });
    }
    return now;
  }
}
