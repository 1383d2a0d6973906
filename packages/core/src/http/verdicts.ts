import type { Decision } from '../decision.js';
import type { Hold, Limiter } from '../limiter-types.js';
import type { Cost } from '../units.js';
import type { HttpConfig } from './config.js';
import { decisionHeaders, FIELD } from './headers.js';
import { heldRequest } from './held-request.js';
import { NOTHING_TO_SETTLE } from './node-response.js';
import { rejectBody } from './reject-body.js';
import { ceilSeconds } from './seconds.js';
import type { HttpVerdict } from './types.js';

/**
 * Decides one request on a limiter and turns the decision into a verdict, as the HTTP options
 * say: `identity` is what the limiter counts under, `key` what the request is told it was counted
 * under (the key function's answer, or the client address). With `cost` (the `cost` option's
 * estimate for the request) the request holds it (`limiter.hold`) instead of consuming.
 */
export type Decide = (limiter: Limiter, policy: string, identity: string, key: string, raw: unknown, cost?: Cost) => Promise<HttpVerdict>;

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
  const refundWanted = refundRule(config);

  function passVerdict(limiter: Limiter, policy: string, decision: Decision, identity: string, key: string, raw: unknown): HttpVerdict {
    const headers = decisionHeaders(plan, policy, decision, key);
    if (decision.delayMs > 0 && plan !== false) headers.push([FIELD.retryAfter, String(ceilSeconds(decision.delayMs))]);
    return { action: 'pass', decision, key, headers, delayMs: decision.delayMs, settle: settler(limiter, identity, decision, raw) };
  }

  /** A held request: its handler settles the hold; the response's end settles what it left open. */
  function heldVerdict(
    limiter: Limiter,
    policy: string,
    hold: Hold,
    estimate: Cost,
    key: string,
    raw: unknown,
  ): HttpVerdict | Promise<HttpVerdict> {
    const { decision } = hold;
    if (!decision.allowed) return rejectVerdict(policy, retryEstimated(limiter, decision), key, raw);
    const { held, finish } = heldRequest(hold, estimate);
    const headers = decisionHeaders(plan, policy, decision, key);
    // A client that went away before the response was sent gets its whole estimate back.
    const settle = (statusCode: number | undefined, response?: unknown) => {
      const refund = statusCode === undefined || refundWanted(statusCode, raw, response);
      if (typeof refund === 'boolean') finish(refund);
      else refund.then(finish, () => finish(false));
    };
    return { action: 'pass', decision, key, headers, delayMs: decision.delayMs, settle, held };
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
  const decide: Decide = (limiter, policy, identity, key, raw, cost) =>
    cost === undefined
      ? limiter.consume(identity).then((decision) => verdictOf(limiter, policy, decision, identity, key, raw))
      : limiter.hold(identity, { cost }).then((hold) => heldVerdict(limiter, policy, hold, cost, key, raw));
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
 * Whether a finished request is given back under the refund options: one whose connection closed
 * first failed; else it failed as `requestWasSuccessful` says (by default when its status is 400
 * or more). A throwing or rejecting callback leaves the request counted.
 */
function refundRule({ skipFailedRequests, skipSuccessfulRequests, requestWasSuccessful }: HttpConfig) {
  const refundIf = (failed: boolean) => (failed ? skipFailedRequests : skipSuccessfulRequests);
  return (statusCode: number | undefined, raw: unknown, response: unknown): boolean | Promise<boolean> => {
    if (statusCode === undefined) return refundIf(true);
    if (requestWasSuccessful === undefined) return refundIf(statusCode >= 400);
    return new Promise<boolean>((resolve) => resolve(requestWasSuccessful(raw, response))).then(
      (succeeded) => refundIf(!succeeded),
      () => false,
    );
  };
}

/**
 * What happens once the response is over: the concurrency slot is freed, and the refund options
 * apply (see `refundRule`). Failures here leave the slot to its leaseTtl and the request counted:
 * what happens without them.
 */
function settlerOf(config: HttpConfig): Settler {
  const refunds = config.skipFailedRequests || config.skipSuccessfulRequests;
  const refundWanted = refundRule(config);
  return (limiter, identity, decision, raw) => {
    const { lease } = decision;
    if (!refunds && lease === undefined) return NOTHING_TO_SETTLE;
    let settled = false;
    return (statusCode, response) => {
      if (settled) return;
      settled = true;
      if (lease !== undefined) limiter.release(lease).catch(() => {});
      if (!refunds) return;
      // The decision's charge: a response that ends after the window (or period) it was charged in gives nothing back.
      const refundNow = () => limiter.refund(identity, { charge: decision }).catch(() => {});
      const refund = refundWanted(statusCode, raw, response);
      if (refund === true) refundNow();
      else if (refund !== false)
        refund.then((wanted) => {
          if (wanted) refundNow();
        });
    };
  };
}
