import type { Algorithm, Charge, StepResult } from './types.js';

/** Units a refund of `cost` may give back: never more than its charge took. */
export function unitsBack(cost: number, charge: Charge | undefined): number {
  return charge === undefined ? cost : Math.min(cost, charge.cost);
}

/**
 * What a charge of `charge.cost` units of `unit` (one unit of drain) still holds at `nowMs` in a
 * meter draining `drainPerMs` per ms: its units drain first-come as time passes, so after
 * `cost × unit / drainPerMs` ms it holds nothing. Without a charge, no bound (Infinity).
 * For a meter whose later charges pile up behind it (GCRA's TAT, a bucket's deficit), what it adds
 * to the meter is at least this much: giving back at most this never leaves more room than had
 * the charge never been made.
 */
export function heldByCharge(charge: Charge | undefined, nowMs: number, unit: number, drainPerMs: number): number {
  if (charge === undefined) return Infinity;
  return charge.cost * unit - Math.max(0, nowMs - charge.atMs) * drainPerMs;
}

/**
 * What a refund or a penalty reports: the state it leaves (`next`, kept `ttlMs`; undefined when
 * there was nothing to change) and the decision a request of cost 1 would now get, as a peek would.
 */
export function leftAfter<P, S>(
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
  return leftAfter(algorithm, state, undefined, 0, nowMs, params);
}
