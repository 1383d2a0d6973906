import type { Outcome } from '../../algorithms/types.js';
import type { BoundLimit, StoreResult } from '../store.js';

const LOCAL = { token: '' };

/**
 * A lease the store refused, the key then being out of capacity for this process: until
 * `untilMs` (local time) its consumes are refused here rather than each sent to the store.
 * Capacity that comes back meanwhile is not lost to the algorithms that accumulate it (a
 * bucket, GCRA, a window's count): the next lease takes it.
 */
export class Refusal {
  constructor(
    /** The limits the lease was refused on: a consume on others (`withLimits`) is not refused here. */
    readonly limits: readonly BoundLimit[],
    /** The store's answer to the lease it refused. */
    private readonly outcomes: readonly Outcome[],
    private readonly sentAtMs: number,
    readonly untilMs: number,
  ) {}

  /** The refusal of a consume at `nowMs`, or undefined once it has ended. */
  answer(nowMs: number): StoreResult | undefined {
    if (nowMs >= this.untilMs) return undefined;
    const elapsedMs = nowMs - this.sentAtMs;
    const retryAfterMs = this.untilMs - nowMs;
    const outcomes: Outcome[] = [];
    for (const { allowed, resetAfterMs } of this.outcomes) {
      outcomes.push({
        allowed,
        remaining: 0,
        resetAfterMs: Math.max(0, resetAfterMs - elapsedMs),
        retryAfterMs: allowed ? 0 : retryAfterMs,
        delayMs: 0,
      });
    }
    return { committed: false, outcomes, leased: LOCAL };
  }
}
