import { fixedWindowLua } from '../../lua/sources.generated.js';
import { LIMIT_PER_WINDOW, LIMIT_PER_WINDOW_FIELDS, type LimitPerWindow, limitPerWindowOrForever } from '../fields.js';
import { leftAfter, nothingToRefund, unitsBack } from '../refund.js';
import type { Algorithm } from '../types.js';

export type FixedWindowParams = LimitPerWindow;

export interface FixedWindowState {
  startMs: number;
  count: number;
}

/**
 * Fixed window (the INCR + EXPIRE rate-limiter pattern of the Redis INCR docs): a counter that starts with an identity's first request
 * and expires a window later. Up to 2 × limit can pass around a window boundary. With
 * `window: 'forever'` (`windowMs` Infinity) the count never resets: a lifetime quota, kept
 * without expiry (the Lua step receives -1 as its window).
 */
export const fixedWindow: Algorithm<FixedWindowParams, FixedWindowState, typeof LIMIT_PER_WINDOW_FIELDS, 'fixed-window'> = {
  name: 'fixed-window',
  lua: fixedWindowLua,
  fields: LIMIT_PER_WINDOW_FIELDS,
  denialHoldsUntilRetry: true,

  parse: limitPerWindowOrForever,

  ...LIMIT_PER_WINDOW,
  luaArgs: (p) => [p.limit, Number.isFinite(p.windowMs) ? p.windowMs : -1],
  // Nothing comes back before the window ends.
  policy: (p) => ({ ...LIMIT_PER_WINDOW.policy(p), refillMs: 0 }),

  step(state, nowMs, { limit, windowMs }, cost) {
    let startMs = nowMs;
    let count = 0;
    if (state !== undefined && nowMs < state.startMs + windowMs) {
      startMs = state.startMs;
      count = state.count;
    }
    const resetAfterMs = startMs + windowMs - nowMs;
    if (count + cost > limit) {
      const retryAfterMs = cost > limit ? Infinity : resetAfterMs;
      // A count above the limit: the limit was lowered under a live state.
      const remaining = Math.max(0, limit - count);
      return { allowed: false, remaining, resetAfterMs, retryAfterMs, delayMs: 0, next: undefined, ttlMs: 0 };
    }
    count += cost;
    return {
      allowed: true,
      remaining: limit - count,
      resetAfterMs,
      retryAfterMs: 0,
      delayMs: 0,
      next: { startMs, count },
      ttlMs: resetAfterMs,
    };
  },

  /**
   * Lowers the current window's count by `cost`, not below 0; the window keeps its end. A charge
   * made before the current window started went with its window: nothing comes back.
   */
  refund(state, nowMs, params, cost, charge) {
    const endMs = state === undefined ? nowMs : state.startMs + params.windowMs;
    if (state === undefined || nowMs >= endMs || state.count === 0) return nothingToRefund(fixedWindow, state, nowMs, params);
    if (charge !== undefined && charge.atMs < state.startMs) return nothingToRefund(fixedWindow, state, nowMs, params);
    const next = { startMs: state.startMs, count: Math.max(0, state.count - unitsBack(cost, charge)) };
    return leftAfter(fixedWindow, state, next, endMs - nowMs, nowMs, params);
  },

  /** Adds `cost` to the current window's count (starting a window as `step` would), even beyond the limit. */
  penalty(state, nowMs, params, cost) {
    const live = state !== undefined && nowMs < state.startMs + params.windowMs;
    const startMs = live ? state.startMs : nowMs;
    const next = { startMs, count: (live ? state.count : 0) + cost };
    return leftAfter(fixedWindow, state, next, startMs + params.windowMs - nowMs, nowMs, params);
  },
};
