import type { Decision } from '../decision.js';
import type { RequestRateLimit } from './types.js';

/** The decision as an adapter puts it on the request: with express-rate-limit's `used`, `resetTime` and `key` beside it. */
export function requestRateLimit(decision: Decision, key: string): RequestRateLimit {
  return {
    ...decision,
    used: Math.max(0, decision.limit - decision.remaining),
    resetTime: new Date(decision.decidedAtMs + decision.resetAfterMs),
    key,
  };
}
