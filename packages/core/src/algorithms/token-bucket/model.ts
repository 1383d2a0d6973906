import { parseDuration } from '../../duration.js';
import { invalidSpec } from '../../errors.js';
import { positiveInteger, positiveNumber, reserveDelayMs } from '../fields.js';
import { nothingToRefund, refunded } from '../refund.js';
import type { Algorithm } from '../types.js';
import tokenBucketLua from './token-bucket.lua';

export interface TokenBucketParams {
  capacity: number;
  /** Tokens added per `intervalMs`. */
  refill: number;
  intervalMs: number;
  /** Reserve mode: the longest wait a request may take on by borrowing future tokens; 0 rejects instead. */
  maxDelayMs: number;
}

/**
 * Tokens are kept scaled by `intervalMs` ("token-milliseconds"), so refilling adds
 * `elapsed × refill`: whole numbers stay whole and both stores compute exactly alike.
 */
export interface TokenBucketState {
  scaled: number;
  lastMs: number;
}

/**
 * Token bucket (seeds 001/002/004): holds up to `capacity` tokens, refilled continuously.
 * In reserve mode (SmoothBursty) the bucket may go into debt by up to `maxDelay` of refill:
 * a request short of tokens is admitted with `delayMs`, the time until its tokens are due.
 */
export const tokenBucket: Algorithm<TokenBucketParams, TokenBucketState> = {
  name: 'token-bucket',
  lua: tokenBucketLua,
  denialHoldsUntilRetry: true,

  parse(spec, path) {
    const capacity = positiveInteger(spec, 'capacity', path);
    const maxDelayMs = reserveDelayMs(spec, path);
    if (spec.refillPerSecond !== undefined) {
      if (spec.refillAmount !== undefined || spec.refillInterval !== undefined) {
        throw invalidSpec(`${path}.refillPerSecond`, 'cannot be combined with refillAmount/refillInterval', spec.refillPerSecond);
      }
      return { capacity, refill: positiveNumber(spec, 'refillPerSecond', path), intervalMs: 1000, maxDelayMs };
    }
    if (spec.refillAmount === undefined) {
      throw invalidSpec(`${path}.refillPerSecond`, 'is required (or refillAmount with refillInterval)', undefined);
    }
    const refill = positiveNumber(spec, 'refillAmount', path);
    return { capacity, refill, intervalMs: parseDuration(spec.refillInterval ?? 1000, `${path}.refillInterval`), maxDelayMs };
  },

  luaArgs: (p) => [p.capacity, p.refill, p.intervalMs, p.maxDelayMs],
  limit: (p) => Math.floor((p.capacity * p.intervalMs + p.maxDelayMs * p.refill) / p.intervalMs),
  policy: (p) => ({ quota: p.capacity, windowMs: (p.capacity * p.intervalMs) / p.refill }),
  reserving: (p, maxDelayMs) => ({ ...p, maxDelayMs }),

  step(state, nowMs, { capacity, refill, intervalMs, maxDelayMs }, cost) {
    const full = capacity * intervalMs;
    const borrow = maxDelayMs * refill;
    let scaled = full;
    let lastMs = nowMs;
    if (state !== undefined) {
      // A clock that steps back (skewed clients) refills nothing and never rewinds lastMs.
      const elapsed = nowMs > state.lastMs ? nowMs - state.lastMs : 0;
      scaled = Math.min(full, state.scaled + elapsed * refill);
      lastMs = Math.max(nowMs, state.lastMs);
    }
    const need = cost * intervalMs;
    const remaining = Math.max(0, Math.floor((scaled + borrow) / intervalMs));
    if (need - full > borrow || need - scaled > borrow) {
      const retryAfterMs = need - full > borrow ? Infinity : Math.ceil((need - scaled - borrow) / refill);
      const resetAfterMs = Math.ceil((full - scaled) / refill);
      return { allowed: false, remaining, resetAfterMs, retryAfterMs, delayMs: 0, next: undefined, ttlMs: 0 };
    }
    const left = scaled - need;
    const resetAfterMs = Math.ceil((full - left) / refill);
    return {
      allowed: true,
      remaining: Math.max(0, Math.floor((left + borrow) / intervalMs)),
      resetAfterMs,
      retryAfterMs: 0,
      delayMs: left < 0 ? Math.ceil(-left / refill) : 0,
      next: { scaled: left, lastMs },
      ttlMs: resetAfterMs,
    };
  },

  /** Puts `cost` tokens back, up to the capacity. */
  refund(state, nowMs, params, cost) {
    if (state === undefined) return nothingToRefund(tokenBucket, state, nowMs, params);
    const { capacity, refill, intervalMs } = params;
    const full = capacity * intervalMs;
    const elapsed = nowMs > state.lastMs ? nowMs - state.lastMs : 0;
    const scaled = Math.min(full, state.scaled + elapsed * refill);
    if (scaled >= full) return nothingToRefund(tokenBucket, state, nowMs, params);
    const left = Math.min(full, scaled + cost * intervalMs);
    const next = { scaled: left, lastMs: Math.max(nowMs, state.lastMs) };
    return refunded(tokenBucket, state, next, Math.ceil((full - left) / refill), nowMs, params);
  },
};
