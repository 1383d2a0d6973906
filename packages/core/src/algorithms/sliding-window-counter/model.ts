import { invalidSpec } from '../../errors.js';
import { slidingWindowCounterLua } from '../../lua/sources.generated.js';
import { LIMIT_PER_WINDOW, LIMIT_PER_WINDOW_FIELDS, type LimitPerWindow, limitPerWindow } from '../fields.js';
import { leftAfter, nothingToRefund, unitsBack } from '../refund.js';
import type { Algorithm } from '../types.js';

export type SlidingWindowCounterParams = LimitPerWindow;

/** The counts of the window starting at `startMs` (epoch-aligned) and of the one before it. */
export interface SlidingWindowCounterState {
  startMs: number;
  prev: number;
  curr: number;
}

/**
 * Sliding window counter (Cloudflare's, from "How we built rate limiting capable of scaling to millions of domains"): the previous window's
 * count, weighted by how much of it the sliding window still covers, plus the current
 * count. Compared scaled by the window, `prev × (window − elapsed) + curr × window`
 * against `limit × window`, so both stores compute in exact integers.
 */
export const slidingWindowCounter: Algorithm<
  SlidingWindowCounterParams,
  SlidingWindowCounterState,
  typeof LIMIT_PER_WINDOW_FIELDS,
  'sliding-window-counter'
> = {
  name: 'sliding-window-counter',
  lua: slidingWindowCounterLua,
  fields: LIMIT_PER_WINDOW_FIELDS,
  denialHoldsUntilRetry: true,

  parse(spec, at) {
    const { limit, windowMs } = limitPerWindow(spec, at);
    if (2 * limit * windowMs > Number.MAX_SAFE_INTEGER) {
      throw invalidSpec(at('limit'), `is too high for a ${windowMs} ms window (limit × window must stay below 2^52)`, limit);
    }
    return { limit, windowMs };
  },

  ...LIMIT_PER_WINDOW,

  step(state, nowMs, { limit, windowMs }, cost) {
    const { startMs, prev, curr } = roll(state, nowMs, windowMs);
    const elapsed = Math.max(0, nowMs - startMs);
    const capacity = limit * windowMs;
    const estimate = prev * (windowMs - elapsed) + curr * windowMs;
    const need = cost * windowMs;
    if (estimate + need > capacity) {
      let retryAfterMs = Infinity;
      if (cost <= limit) {
        const room = capacity - need - curr * windowMs;
        // In this window the previous count fades enough, or else in the next one the current count does.
        retryAfterMs =
          room >= 0
            ? startMs + windowMs - Math.floor(room / prev) - nowMs
            : startMs + 2 * windowMs - Math.floor((capacity - need) / curr) - nowMs;
      }
      return {
        allowed: false,
        remaining: Math.max(0, Math.floor((capacity - estimate) / windowMs)),
        resetAfterMs: fadedAfter(startMs, prev, curr, nowMs, windowMs),
        retryAfterMs,
        delayMs: 0,
        next: undefined,
        ttlMs: 0,
      };
    }
    const resetAfterMs = startMs + 2 * windowMs - nowMs;
    return {
      allowed: true,
      remaining: Math.floor((capacity - estimate - need) / windowMs),
      resetAfterMs,
      retryAfterMs: 0,
      delayMs: 0,
      next: { startMs, prev, curr: curr + cost },
      ttlMs: resetAfterMs,
    };
  },

  /**
   * Lowers by `cost`, not below 0, the count the charge landed in: the current window's, or the
   * previous one's while it still weighs; a charge older than that gives nothing back. Without a
   * charge, the current window's count.
   */
  refund(state, nowMs, params, cost, charge) {
    const { windowMs } = params;
    const { startMs, prev, curr } = roll(state, nowMs, windowMs);
    const chargedStartMs = charge === undefined ? startMs : Math.floor(charge.atMs / windowMs) * windowMs;
    const back = unitsBack(cost, charge);
    let next: SlidingWindowCounterState;
    if (chargedStartMs === startMs && curr > 0) next = { startMs, prev, curr: Math.max(0, curr - back) };
    else if (chargedStartMs === startMs - windowMs && prev > 0) next = { startMs, prev: Math.max(0, prev - back), curr };
    else return nothingToRefund(slidingWindowCounter, state, nowMs, params);
    return leftAfter(slidingWindowCounter, state, next, fadedAfter(startMs, next.prev, next.curr, nowMs, windowMs), nowMs, params);
  },

  /** Adds `cost` to the current window's count, even beyond the limit. */
  penalty(state, nowMs, params, cost) {
    const { startMs, prev, curr } = roll(state, nowMs, params.windowMs);
    const next = { startMs, prev, curr: curr + cost };
    return leftAfter(slidingWindowCounter, state, next, startMs + 2 * params.windowMs - nowMs, nowMs, params);
  },
};

/** The state as seen from `nowMs`; a clock that steps back never rewinds the window. */
function roll(state: SlidingWindowCounterState | undefined, nowMs: number, windowMs: number): SlidingWindowCounterState {
  const startMs = Math.floor(nowMs / windowMs) * windowMs;
  if (state === undefined) return { startMs, prev: 0, curr: 0 };
  if (state.startMs >= startMs) return state;
  return { startMs, prev: state.startMs === startMs - windowMs ? state.curr : 0, curr: 0 };
}

/** Until both counts weigh nothing. */
function fadedAfter(startMs: number, prev: number, curr: number, nowMs: number, windowMs: number): number {
  if (curr > 0) return startMs + 2 * windowMs - nowMs;
  return prev > 0 ? startMs + windowMs - nowMs : 0;
}
