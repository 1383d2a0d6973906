import type { Outcome } from '../../algorithms/types.js';
import type { BoundLimit } from '../store.js';

/**
 * How long after it was charged (at `atMs`, store time) a lease on one limit may be spent, at
 * most `ttlMs`. A window algorithm's lease ends with the window it was charged in, so a unit
 * spent late still counts in the window that charged it.
 */
type Horizon = (limit: BoundLimit, outcome: Outcome, atMs: number, ttlMs: number) => number;

const untilTtl: Horizon = (_limit, _outcome, _atMs, ttlMs) => ttlMs;

/** The algorithms a lease may serve; the others (concurrency, leaky bucket, warm-up) always go to the store. */
const HORIZONS: Readonly<Record<string, Horizon>> = {
  // The window ends `resetAfterMs` after the charge; a lifetime count (Infinity) keeps the TTL.
  'fixed-window': (_limit, outcome, _atMs, ttlMs) => Math.min(ttlMs, outcome.resetAfterMs),
  // Windows are aligned on multiples of their length, in store time.
  'sliding-window-counter': (limit, _outcome, atMs, ttlMs) => {
    const { windowMs } = limit.params as { windowMs: number };
    return Math.min(ttlMs, windowMs - (atMs % windowMs));
  },
  'sliding-window-log': untilTtl,
  gcra: untilTtl,
  'token-bucket': untilTtl,
};

/** Reserve mode hands out future slots (`delayMs`): a lease of them would let requests through early. */
function reserves(limit: BoundLimit): boolean {
  const { maxDelayUs = 0, maxDelayMs = 0 } = limit.params as { maxDelayUs?: number; maxDelayMs?: number };
  return maxDelayUs > 0 || maxDelayMs > 0;
}

/** What a rule's limits allow a lease: whether one may be taken, and at most how many units. */
export interface LeasePlan {
  /** The most units one lease may hold: `maxShare` of the smallest limit, rounded down. */
  readonly maxUnits: number;
  /** How long a lease charged at `atMs` with these outcomes may be spent (ms). */
  horizonMs(outcomes: readonly Outcome[], atMs: number, ttlMs: number): number;
}

/** The plan of a rule, or undefined when one of its limits cannot lease. */
export function leasePlanOf(limits: readonly BoundLimit[], maxShare: number): LeasePlan | undefined {
  const horizons: Horizon[] = [];
  let maxUnits = Number.POSITIVE_INFINITY;
  for (const limit of limits) {
    const horizon = HORIZONS[limit.algorithm.name];
    if (horizon === undefined || reserves(limit)) return undefined;
    horizons.push(horizon);
    maxUnits = Math.min(maxUnits, Math.floor(limit.algorithm.limit(limit.params) * maxShare));
  }
  return {
    maxUnits,
    horizonMs(outcomes, atMs, ttlMs) {
      let horizonMs = ttlMs;
      for (let i = 0; i < horizons.length; i++) horizonMs = Math.min(horizonMs, horizons[i]!(limits[i]!, outcomes[i]!, atMs, ttlMs));
      return horizonMs;
    },
  };
}
