import type { Decision } from '../decision.js';
import type { Hold } from '../limiter-types.js';
import type { Cost } from '../units.js';

/** What a held request's handler may do with its hold: `req.rateLimit.settle(actual)`, `req.rateLimit.cancel()`. */
export interface HeldRequest {
  /** Charges `actual` instead of the estimate the request held (see `Hold.settle`); the first settle or cancel is the one that counts. */
  settle(actual: Cost): Promise<Decision>;
  /** Gives the whole estimate back (see `Hold.cancel`). */
  cancel(): Promise<Decision>;
}

/**
 * A request's hold as its handler sees it, and what ends it once the response is over
 * (`finish(refund)`): a hold the handler neither settled nor cancelled is settled at its estimate,
 * or cancelled when `refund` (the client went away, or the refund options give the request back).
 * Settled once: whatever comes after the first settle or cancel changes nothing.
 */
export function heldRequest(hold: Hold, estimate: Cost): { held: HeldRequest; finish(refund: boolean): void } {
  let ended = false;
  const end = (run: () => Promise<Decision>): Promise<Decision> => {
    // The hold itself answers a second settle with a peek, changing nothing.
    ended = true;
    return run();
  };
  return {
    held: {
      settle: (actual) => end(() => hold.settle(actual)),
      cancel: () => end(() => hold.cancel()),
    },
    finish(refund) {
      if (ended) return;
      end(() => (refund ? hold.cancel() : hold.settle(estimate))).catch(() => {});
    },
  };
}
