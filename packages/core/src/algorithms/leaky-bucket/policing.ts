import type { StepResult } from '../types.js';

export interface PolicingParams {
  mode: 'policing';
  /** Bucket capacity. */
  burst: number;
  /** Drained per `periodMs`. */
  rate: number;
  periodMs: number;
}

/**
 * The water level scaled by `periodMs` ("drop-milliseconds"), so draining removes
 * `elapsed × rate` and both stores compute exactly alike.
 */
export interface PolicingState {
  level: number;
  lastMs: number;
}

/** The meter: the level drains at the rate; a request that would overflow the bucket is denied. */
export function policingStep(
  state: PolicingState | undefined,
  nowMs: number,
  { burst, rate, periodMs }: PolicingParams,
  cost: number,
): StepResult<PolicingState> {
  const { level, lastMs } = drained(state, nowMs, rate);
  const full = burst * periodMs;
  const need = cost * periodMs;
  if (cost > burst || level + need > full) {
    const retryAfterMs = cost > burst ? Infinity : Math.ceil((level + need - full) / rate);
    const remaining = Math.floor((full - level) / periodMs);
    return { allowed: false, remaining, resetAfterMs: Math.ceil(level / rate), retryAfterMs, delayMs: 0, next: undefined, ttlMs: 0 };
  }
  const filled = level + need;
  const resetAfterMs = Math.ceil(filled / rate);
  return {
    allowed: true,
    remaining: Math.floor((full - filled) / periodMs),
    resetAfterMs,
    retryAfterMs: 0,
    delayMs: 0,
    next: { level: filled, lastMs },
    ttlMs: resetAfterMs,
  };
}

/** Takes `cost` drops out of the bucket, down to empty. */
export function policingRefund(
  state: PolicingState | undefined,
  nowMs: number,
  { rate, periodMs }: PolicingParams,
  cost: number,
): { state: PolicingState; ttlMs: number } | undefined {
  if (state === undefined) return undefined;
  const { level, lastMs } = drained(state, nowMs, rate);
  if (level <= 0) return undefined;
  const left = Math.max(0, level - cost * periodMs);
  return { state: { level: left, lastMs }, ttlMs: Math.ceil(left / rate) };
}

/** The level at `nowMs`; a clock that steps back drains nothing and never rewinds `lastMs`. */
function drained(state: PolicingState | undefined, nowMs: number, rate: number): PolicingState {
  if (state === undefined) return { level: 0, lastMs: nowMs };
  const elapsed = nowMs > state.lastMs ? nowMs - state.lastMs : 0;
  return { level: Math.max(0, state.level - elapsed * rate), lastMs: Math.max(nowMs, state.lastMs) };
}
