import type { Decision } from '../decision.js';
import type { HeldRequest } from './held-request.js';
import type { RequestRateLimit } from './types.js';

/**
 * Where `current`, express-rate-limit's older name of `used`, lives: on the prototype, so that it is
 * hidden from iteration and JSON as express-rate-limit hides it, without a `defineProperty` per
 * request (~2k instructions).
 */
const SHOWN_PROTOTYPE = Object.freeze({
  get current(): number {
    return (this as unknown as { used: number }).used;
  },
});

/**
 * The decision as an adapter puts it on the request: with express-rate-limit's `used`,
 * `resetTime` and `key` beside it, and `current` (see above); with a hold (the `cost` option), its
 * `settle` and `cancel`, hidden from iteration and JSON likewise.
 */
export function requestRateLimit(decision: Decision, key: string, held?: HeldRequest): RequestRateLimit {
  // Copied, then added to: `{ ...decision, used, ... }` costs V8 ~20k instructions more per request.
  const shown = Object.assign(Object.create(SHOWN_PROTOTYPE) as object, decision) as Decision & {
    used: number;
    resetTime: Date;
    key: string;
  };
  shown.used = Math.max(0, decision.limit - decision.remaining);
  shown.resetTime = new Date(decision.decidedAtMs + decision.resetAfterMs);
  shown.key = key;
  if (held === undefined) return shown as RequestRateLimit;
  return Object.defineProperties(shown, { settle: { value: held.settle }, cancel: { value: held.cancel } }) as RequestRateLimit;
}
