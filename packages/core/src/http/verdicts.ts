import type { Decision } from '../decision.js';
import type { Limiter } from '../limiter-types.js';
import type { HttpConfig } from './config.js';
import { decisionHeaders, FIELD } from './headers.js';
import { NOTHING_TO_SETTLE } from './node-response.js';
import { rejectBody } from './reject-body.js';
import { ceilSeconds } from './seconds.js';
import type { HttpVerdict } from './types.js';

/**
 * Decides one request on a limiter and turns the decision into a verdict, as the HTTP options
 * say: `identity` is what the limiter counts under, `key` what the request is told it was counted
 * under (the key function's answer, or the client address).
 */
export type Decide = (limiter: Limiter, policy: string, identity: string, key: string, raw: unknown) => Promise<HttpVerdict>;

/** The verdict of a decision already made: at once when it admits, a promise when the body of a rejection must be built. */
export type VerdictOf = (
  limiter: Limiter,
  policy: string,
  decision: Decision,
  identity: string,
  key: string,
  raw: unknown,
) => HttpVerdict | Promise<HttpVerdict>;

/** The verdict-building half of an HTTP limiter, shared by inline rules and rule sets. */
export function verdictMaker(config: HttpConfig): { decide: Decide; verdictOf: VerdictOf } {
  const { message, headers: plan, responseType, statusCode, storeErrorStatusCode } = config;
  const settler = settlerOf(config);

  function passVerdict(limiter: Limiter, policy: string, decision: Decision, identity: string, key: string, raw: unknown): HttpVerdict {
    const headers = decisionHeaders(plan, policy, decision, key);
    if (decision.delayMs > 0 && plan !== false) headers.push([FIELD.retryAfter, String(ceilSeconds(decision.delayMs))]);
    return { action: 'pass', decision, key, headers, delayMs: decision.delayMs, settle: settler(limiter, identity, decision, raw) };
  }

  async function rejectVerdict(policy: string, decision: Decision, key: string, raw: unknown): Promise<HttpVerdict> {
    const headers = decisionHeaders(plan, policy, decision, key);
    if (Number.isFinite(decision.retryAfterMs) && plan !== false)
      headers.push([FIELD.retryAfter, String(ceilSeconds(decision.retryAfterMs))]);
    headers.push([FIELD.cacheControl, 'no-store']);
    const code = decision.source === 'policy' ? storeErrorStatusCode : statusCode;
    return {
      action: 'reject',
      decision,
      key,
      status: code,
      headers,
      ...(await rejectBody(message, responseType, code, raw, decision, key)),
    };
  }

  const verdictOf: VerdictOf = (limiter, policy, decision, identity, key, raw) =>
    decision.allowed
      ? passVerdict(limiter, policy, decision, identity, key, raw)
      : rejectVerdict(policy, retryEstimated(limiter, decision), key, raw);
  // A plain `then` rather than an async function: one promise fewer on every request.
  const decide: Decide = (limiter, policy, identity, key, raw) =>
    limiter.consume(identity).then((decision) => verdictOf(limiter, policy, decision, identity, key, raw));
  return { decide, verdictOf };
}

/** What a client refused a concurrency slot is told to wait: the shortest time `Retry-After` can say. */
const CONCURRENCY_RETRY_MS = 1000;

/**
 * The decision as a refused client is told it. A concurrency slot frees the moment a request in
 * flight ends, which nothing can foresee; the store's `retryAfterMs` (until the oldest lease
 * expires: `leaseTtl`, minutes) only bounds a holder that crashed, so such a denial says 1 second.
 */
function retryEstimated(limiter: Limiter, decision: Decision): Decision {
  if (decision.source === 'policy' || !(decision.retryAfterMs > CONCURRENCY_RETRY_MS)) return decision;
  const denying = limiter.limits.find((limit) => limit.name === decision.limitName);
  if (denying?.algorithm.release === undefined) return decision;
  return { ...decision, retryAfterMs: CONCURRENCY_RETRY_MS };
}

type Settler = (
  limiter: Limiter,
  identity: string,
  decision: Decision,
  raw: unknown,
) => (statusCode: number | undefined, response?: unknown) => void;

/**
 * What happens once the response is over: the concurrency slot is freed, and the refund options
 * apply (a request failed when its connection closed first, else as `requestWasSuccessful` says,
 * by default when its status is 400 or more). Failures here leave the slot to its leaseTtl and the
 * request counted: what happens without them.
 */
function settlerOf({ skipFailedRequests, skipSuccessfulRequests, requestWasSuccessful }: HttpConfig): Settler {
  const refunds = skipFailedRequests || skipSuccessfulRequests;
  // The decision's charge: a response that ends after the window (or period) it was charged in gives nothing back.
  const refundIf = (limiter: Limiter, identity: string, decision: Decision, failed: boolean) => {
    if (failed ? skipFailedRequests : skipSuccessfulRequests) limiter.refund(identity, { charge: decision }).catch(() => {});
  };
  return (limiter, identity, decision, raw) => {
    const { lease } = decision;
    if (!refunds && lease === undefined) return NOTHING_TO_SETTLE;
    let settled = false;
    return (statusCode, response) => {
      if (settled) return;
      settled = true;
      if (lease !== undefined) limiter.release(lease).catch(() => {});
      if (!refunds) return;
      if (statusCode === undefined || requestWasSuccessful === undefined) {
        refundIf(limiter, identity, decision, statusCode === undefined || statusCode >= 400);
        return;
      }
      // A throwing or rejecting callback leaves the request counted.
      new Promise<boolean>((resolve) => resolve(requestWasSuccessful(raw, response)))
        .then((succeeded) => refundIf(limiter, identity, decision, !succeeded))
        .catch(() => {});
    };
  };
}
