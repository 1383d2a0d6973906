import type { Decision } from '../decision.js';
import type { Limiter } from '../limiter-types.js';
import type { HttpConfig } from './config.js';
import { ceilSeconds, decisionHeaders, FIELD } from './headers.js';
import { NOTHING_TO_SETTLE } from './node-response.js';
import { rejectBody } from './reject-body.js';
import type { HttpVerdict } from './types.js';

/** Decides one request on a limiter and turns the decision into a verdict, as the HTTP options say. */
export type Decide = (limiter: Limiter, policy: string, identity: string, raw: unknown) => Promise<HttpVerdict>;

/** The verdict of a decision already made: at once when it admits, a promise when the body of a rejection must be built. */
export type VerdictOf = (
  limiter: Limiter,
  policy: string,
  decision: Decision,
  identity: string,
  raw: unknown,
) => HttpVerdict | Promise<HttpVerdict>;

/** The verdict-building half of an HTTP limiter, shared by inline rules and rule sets. */
export function verdictMaker(config: HttpConfig): { decide: Decide; verdictOf: VerdictOf } {
  const { message, skipFailedRequests, skipSuccessfulRequests, headers: style, responseType, statusCode, storeErrorStatusCode } = config;
  const refunds = skipFailedRequests || skipSuccessfulRequests;

  /** What happens once the response is over: the concurrency slot is freed, the refund options apply. */
  function settler(limiter: Limiter, identity: string, decision: Decision): (statusCode: number | undefined) => void {
    const { lease } = decision;
    if (!refunds && lease === undefined) return NOTHING_TO_SETTLE;
    let settled = false;
    return (statusCode) => {
      if (settled) return;
      settled = true;
      // Failures here leave the slot to its leaseTtl and the request counted: what happens without them.
      if (lease !== undefined) limiter.release(lease).catch(() => {});
      const failed = statusCode === undefined || statusCode >= 400;
      if (refunds && (failed ? skipFailedRequests : skipSuccessfulRequests)) {
        limiter.refund(identity, { cost: 1 }).catch(() => {});
      }
    };
  }

  function passVerdict(limiter: Limiter, policy: string, decision: Decision, identity: string): HttpVerdict {
    const headers = decisionHeaders(style, policy, decision);
    if (decision.delayMs > 0) headers.push([FIELD.retryAfter, String(ceilSeconds(decision.delayMs))]);
    return { action: 'pass', decision, headers, delayMs: decision.delayMs, settle: settler(limiter, identity, decision) };
  }

  async function rejectVerdict(policy: string, decision: Decision, raw: unknown): Promise<HttpVerdict> {
    const headers = decisionHeaders(style, policy, decision);
    if (Number.isFinite(decision.retryAfterMs)) headers.push([FIELD.retryAfter, String(ceilSeconds(decision.retryAfterMs))]);
    headers.push([FIELD.cacheControl, 'no-store']);
    const code = decision.source === 'policy' ? storeErrorStatusCode : statusCode;
    return { action: 'reject', decision, status: code, headers, ...(await rejectBody(message, responseType, code, raw, decision)) };
  }

  const verdictOf: VerdictOf = (limiter, policy, decision, identity, raw) =>
    decision.allowed ? passVerdict(limiter, policy, decision, identity) : rejectVerdict(policy, decision, raw);
  // A plain `then` rather than an async function: one promise fewer on every request.
  const decide: Decide = (limiter, policy, identity, raw) =>
    limiter.consume(identity).then((decision) => verdictOf(limiter, policy, decision, identity, raw));
  return { decide, verdictOf };
}
