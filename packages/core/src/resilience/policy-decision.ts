import type { Decision, LimitDecision, LimitInfo } from '../decision.js';

/**
 * The decision `onStoreError: 'open'` or `'closed'` gives without the store. Open: allowed,
 * every limit reported full (nothing is known to be spent). Closed: denied, `remaining: 0`,
 * `retryAfterMs` until the store is probed again. Either way `source` is `'policy'`, which
 * HTTP adapters answer with 503 (or 429) when denied.
 */
export function policyDecision(allowed: boolean, infos: readonly LimitInfo[], retryAfterMs: number, decidedAtMs: number): Decision {
  const parts: LimitDecision[] = infos.map(({ name, limit, policy }) => {
    return {
      name,
      limit,
      policy,
      allowed,
      remaining: allowed ? limit : 0,
      resetAfterMs: 0,
      retryAfterMs: allowed ? 0 : retryAfterMs,
      delayMs: 0,
    };
  });
  // Report the tightest limit, as a store decision would.
  const top = parts.reduce((tightest, part) => (part.limit < tightest.limit ? part : tightest));
  return {
    allowed,
    limit: top.limit,
    remaining: top.remaining,
    resetAfterMs: 0,
    retryAfterMs: top.retryAfterMs,
    delayMs: 0,
    limitName: top.name,
    limits: parts,
    source: 'policy',
    decidedAtMs,
  };
}
