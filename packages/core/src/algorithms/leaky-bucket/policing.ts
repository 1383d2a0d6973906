import { MAX_SPAN_MS } from '../fields.js';
import { heldByCharge, unitsBack } from '../refund.js';
import type { Charge, StepResult } from '../types.js';

export interface PolicingParams {
  mode: 'policing';
  /** Time one unit takes to drain, in whole microseconds. */
  intervalUs: number;
  /** Bucket capacity. */
  burst: number;
}

/**
 * The water level measured in the microseconds it takes to drain, so draining subtracts the
 * elapsed time and every quantity is a whole number: both stores compute exactly alike.
 */
export interface PolicingState {
  levelUs: number;
  lastMs: number;
}

/** The meter: the level drains at the rate; a request that would overflow the bucket is denied. */
export function policingStep(
  state: PolicingState | undefined,
  nowMs: number,
  { intervalUs, burst }: PolicingParams,
  cost: number,
): StepResult<PolicingState> {
  const { levelUs, lastMs } = drained(state, nowMs);
  const full = burst * intervalUs;
  const need = cost * intervalUs;
  if (cost > burst || levelUs + need > full) {
    const retryAfterMs = cost > burst ? Infinity : Math.ceil((levelUs + need - full) / 1000);
    // Never below 0, even above a burst lowered under a live state.
    const remaining = Math.max(0, Math.floor((full - levelUs) / intervalUs));
    return { allowed: false, remaining, resetAfterMs: Math.ceil(levelUs / 1000), retryAfterMs, delayMs: 0, next: undefined, ttlMs: 0 };
  }
  const filled = levelUs + need;
  const resetAfterMs = Math.ceil(filled / 1000);
  return {
    allowed: true,
    remaining: Math.floor((full - filled) / intervalUs),
    resetAfterMs,
    retryAfterMs: 0,
    delayMs: 0,
    next: { levelUs: filled, lastMs },
    ttlMs: resetAfterMs,
  };
}

/** Takes `cost` units out of the bucket, down to empty; with a charge, at most what of it has not drained yet. */
export function policingRefund(
  state: PolicingState | undefined,
  nowMs: number,
  { intervalUs }: PolicingParams,
  cost: number,
  charge?: Charge,
): { state: PolicingState; ttlMs: number } | undefined {
  if (state === undefined) return undefined;
  const { levelUs, lastMs } = drained(state, nowMs);
  const backUs = Math.min(unitsBack(cost, charge) * intervalUs, heldByCharge(charge, nowMs, intervalUs, 1000));
  if (levelUs <= 0 || backUs <= 0) return undefined;
  const left = Math.max(0, levelUs - backUs);
  return { state: { levelUs: left, lastMs }, ttlMs: Math.ceil(left / 1000) };
}

/** Pours `cost` units in, even beyond the burst: the bucket overflows (up to 50 years of draining), and drains as always. */
export function policingPenalty(
  state: PolicingState | undefined,
  nowMs: number,
  { intervalUs }: PolicingParams,
  cost: number,
): { state: PolicingState; ttlMs: number } {
  const { levelUs, lastMs } = drained(state, nowMs);
  const filled = Math.min(levelUs + cost * intervalUs, Math.max(levelUs, MAX_SPAN_MS * 1000));
  return { state: { levelUs: filled, lastMs }, ttlMs: Math.ceil(filled / 1000) };
}

/** The level at `nowMs`; a clock that steps back drains nothing and never rewinds `lastMs`. */
function drained(state: PolicingState | undefined, nowMs: number): PolicingState {
  if (state === undefined) return { levelUs: 0, lastMs: nowMs };
  const elapsedMs = nowMs > state.lastMs ? nowMs - state.lastMs : 0;
  return { levelUs: Math.max(0, state.levelUs - elapsedMs * 1000), lastMs: Math.max(nowMs, state.lastMs) };
}
