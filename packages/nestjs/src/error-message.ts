import type { ExecutionContext } from '@nestjs/common';
import { invalidOption, type RequestRateLimit } from '@tollgate/core';

/** What an `errorMessage` function is told of the rejection, under @nestjs/throttler's names (`ThrottlerLimitDetail`). */
export interface RateLimitDetail {
  /** The limit that refused the request (the most restrictive, of a rule of several). */
  readonly limit: number;
  /** Its window, in milliseconds. */
  readonly ttl: number;
  /** What the request was counted under: the `key` function's answer, or the client address. */
  readonly key: string;
  /** The same as `key`. */
  readonly tracker: string;
  /** Requests of the window, this one included: a denied request takes nothing, so it stays `limit + 1` while denied. */
  readonly totalHits: number;
  /** Seconds until the limit is full again. */
  readonly timeToExpire: number;
  /** Always true: the message is only asked for rejected requests. */
  readonly isBlocked: true;
  /** Seconds until a request can pass again. */
  readonly timeToBlockExpire: number;
  /** The decision itself. */
  readonly decision: RequestRateLimit;
}

/** @nestjs/throttler's `errorMessage`: a string, or a function (may be async) of the execution context and the detail. */
export type RateLimitErrorMessage = string | ((context: ExecutionContext, detail: RateLimitDetail) => string | Promise<string>);

function detailOf(decision: RequestRateLimit): RateLimitDetail {
  const part = decision.limits.find((limit) => limit.name === decision.limitName) ?? decision.limits[0];
  return {
    limit: decision.limit,
    ttl: part?.policy.windowMs ?? 0,
    key: decision.key,
    tracker: decision.key,
    totalHits: decision.used + 1,
    timeToExpire: Math.ceil(decision.resetAfterMs / 1000),
    isBlocked: true,
    timeToBlockExpire: Math.ceil(decision.retryAfterMs / 1000),
    decision,
  };
}

/**
 * Core's `message` for an `errorMessage`: what it returns is the body of the 429 (`text`, or the
 * `message` of a JSON body). `contextOf` finds the execution context the guard saw the request in.
 */
export function errorMessageOption(
  errorMessage: unknown,
  contextOf: (request: unknown) => ExecutionContext | undefined,
  field: string,
): ((req: unknown, decision: RequestRateLimit) => string | Promise<string>) | string {
  if (typeof errorMessage === 'string') return errorMessage;
  if (typeof errorMessage !== 'function')
    throw invalidOption(field, 'must be a string or a function (context, detail) => string', errorMessage);
  const message = errorMessage as Exclude<RateLimitErrorMessage, string>;
  return (req, decision) => message(contextOf(req)!, detailOf(decision));
}
