import type { Decision } from '../decision.js';
import type { BoundLimit } from '../stores/store.js';
import type { HeaderStyle } from './types.js';

/** Whole seconds, rounded up: a client that waits this long is never early. */
export function ceilSeconds(ms: number): number {
  return Math.ceil(ms / 1000);
}

/**
 * `RateLimit-Policy` (draft-ietf-httpapi-ratelimit-headers-11), one list member per limit:
 * `"name";q=<quota>;w=<window seconds>`. It never changes for a rule, so it is built once.
 * A window shorter than a second, or not a whole number of seconds, is rounded up: the policy
 * then understates the rate, and a client that follows it is never limited.
 */
export function policyHeader(limits: readonly BoundLimit[]): string {
  return limits
    .map((limit) => {
      const { quota, windowMs } = limit.algorithm.policy(limit.params);
      return `"${limit.name}";q=${Math.floor(quota)};w=${Math.max(1, ceilSeconds(windowMs))}`;
    })
    .join(', ');
}

/** `RateLimit`: `"name";r=<remaining>;t=<seconds until the limit is back to full>` for every limit. */
export function rateLimitHeader(decision: Decision): string {
  let value = '';
  for (const part of decision.limits) {
    if (value !== '') value += ', ';
    value += `"${part.name}";r=${Math.max(0, part.remaining)};t=${ceilSeconds(part.resetAfterMs)}`;
  }
  return value;
}

/** The rate-limit headers of one response, in the chosen style. */
export function decisionHeaders(style: HeaderStyle | false, policy: string, decision: Decision, nowMs: () => number): [string, string][] {
  if (style === false) return [];
  const headers: [string, string][] = [];
  if (style !== 'legacy') {
    headers.push(['RateLimit-Policy', policy], ['RateLimit', rateLimitHeader(decision)]);
  }
  if (style !== 'draft') {
    headers.push(
      ['X-RateLimit-Limit', String(decision.limit)],
      ['X-RateLimit-Remaining', String(Math.max(0, decision.remaining))],
      // Epoch seconds, as GitHub and express-rate-limit send it.
      ['X-RateLimit-Reset', String(ceilSeconds(nowMs() + decision.resetAfterMs))],
    );
  }
  return headers;
}
