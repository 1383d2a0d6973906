import type { Algorithm, StepResult } from './types.js';

/**
 * What a refund reports: the state it leaves (`next`, kept `ttlMs`; undefined when there was
 * nothing to give back) and the decision a request of cost 1 would now get, as a peek would.
 */
export function refunded<P, S>(
  algorithm: Pick<Algorithm<P, S>, 'step'>,
  state: S | undefined,
  next: S | undefined,
  ttlMs: number,
  nowMs: number,
  params: P,
): StepResult<S> {
  const after = next === undefined ? state : ttlMs > 0 ? next : undefined;
  const { allowed, remaining, resetAfterMs, retryAfterMs, delayMs } = algorithm.step(after, nowMs, params, 1, '');
  return { allowed, remaining, resetAfterMs, retryAfterMs, delayMs, next, ttlMs };
}

/** A refund that gives nothing back. */
export function nothingToRefund<P, S>(
  algorithm: Pick<Algorithm<P, S>, 'step'>,
  state: S | undefined,
  nowMs: number,
  params: P,
): StepResult<S> {
  return refunded(algorithm, state, undefined, 0, nowMs, params);
}
