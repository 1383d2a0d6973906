import { invalidSpec } from '../../errors.js';
import { tokenBucketLua } from '../../lua/sources.generated.js';
import { MAX_SPAN_MS, positiveNumber, RESERVE_FIELDS, reserveDelayMs, span, wholeNumber } from '../fields.js';
import { heldByCharge, leftAfter, nothingToRefund, unitsBack } from '../refund.js';
import type { Algorithm } from '../types.js';

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

const TOKEN_BUCKET_FIELDS = {
  capacity: 'count',
  refillPerSecond: 'rate',
  refillAmount: 'rate',
  refillInterval: 'duration',
  ...RESERVE_FIELDS,
} as const;

/**
 * Refuses a refill that no arithmetic can follow: at most one token per microsecond, a full
 * refill within MAX_SPAN_MS, and a scaled capacity that stays an exact whole number.
 */
function checkedRefill(p: TokenBucketParams, refillField: string, capacityField: string): TokenBucketParams {
  if (p.capacity * p.intervalMs > Number.MAX_SAFE_INTEGER) {
    throw invalidSpec(capacityField, 'is too high: capacity × refill interval (ms) must stay below 2^53', p.capacity);
  }
  const tokenUs = (p.intervalMs * 1000) / p.refill;
  if (tokenUs < 1) throw invalidSpec(refillField, 'is too high: one token per microsecond at most', p.refill);
  if (!(p.capacity * tokenUs <= MAX_SPAN_MS * 1000)) {
    throw invalidSpec(refillField, 'is too low: refilling the whole capacity must take at most 50 years', p.refill);
  }
  return p;
}

/**
 * Token bucket (as in Stripe's request rate limiter): holds up to `capacity` tokens, refilled continuously.
 * In reserve mode (Guava's SmoothBursty) the bucket may go into debt by up to `maxDelay` of refill:
 * a request short of tokens is admitted with `delayMs`, the time until its tokens are due.
 */
export const tokenBucket: Algorithm<TokenBucketParams, TokenBucketState, typeof TOKEN_BUCKET_FIELDS, 'token-bucket'> = {
  name: 'token-bucket',
  lua: tokenBucketLua,
  fields: TOKEN_BUCKET_FIELDS,
  denialHoldsUntilRetry: true,
  // Kept until full at the refill rate that wrote it.
  ttlDependsOnValues: true,

  parse(spec, at) {
    const capacity = wholeNumber(spec, 'capacity', at);
    const maxDelayMs = reserveDelayMs(spec, at);
    if (spec.refillPerSecond !== undefined) {
      if (spec.refillAmount !== undefined || spec.refillInterval !== undefined) {
        throw invalidSpec(at('refillPerSecond'), 'cannot be combined with refillAmount/refillInterval', spec.refillPerSecond);
      }
      const refill = positiveNumber(spec, 'refillPerSecond', at);
      return checkedRefill({ capacity, refill, intervalMs: 1000, maxDelayMs }, at('refillPerSecond'), at('capacity'));
    }
    if (spec.refillAmount === undefined) {
      throw invalidSpec(at('refillPerSecond'), 'is required (or refillAmount with refillInterval)', undefined);
    }
    const refill = positiveNumber(spec, 'refillAmount', at);
    const intervalMs = span(spec, 'refillInterval', at, 1000);
    return checkedRefill({ capacity, refill, intervalMs, maxDelayMs }, at('refillAmount'), at('capacity'));
  },

  luaArgs: (p) => [p.capacity, p.refill, p.intervalMs, p.maxDelayMs],
  limit: (p) => Math.floor((p.capacity * p.intervalMs + p.maxDelayMs * p.refill) / p.intervalMs),
  // Reserve mode advertises what it admits (the capacity plus what it may borrow), as `remaining` counts it.
  policy: (p) => {
    const quota = tokenBucket.limit(p);
    const refillMs = ((p.capacity - 1) * p.intervalMs + p.maxDelayMs * p.refill) / p.refill;
    return { quota, windowMs: (quota * p.intervalMs) / p.refill, refillMs };
  },
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

  /**
   * Puts `cost` tokens back, up to the capacity; with a charge, at most the tokens it took that
   * the refill has not yet made up for (`heldByCharge`).
   */
  refund(state, nowMs, params, cost, charge) {
    if (state === undefined) return nothingToRefund(tokenBucket, state, nowMs, params);
    const { capacity, refill, intervalMs } = params;
    const full = capacity * intervalMs;
    const scaled = refilled(state, nowMs, params);
    const back = Math.min(unitsBack(cost, charge) * intervalMs, heldByCharge(charge, nowMs, intervalMs, refill));
    if (scaled >= full || back <= 0) return nothingToRefund(tokenBucket, state, nowMs, params);
    const left = Math.min(full, scaled + back);
    const next = { scaled: left, lastMs: Math.max(nowMs, state.lastMs) };
    return leftAfter(tokenBucket, state, next, Math.ceil((full - left) / refill), nowMs, params);
  },

  /**
   * Takes `cost` tokens even beyond the capacity and what reserve mode may borrow: the bucket goes
   * into debt, but never more than 50 years (`MAX_SPAN_MS`) of refill.
   */
  penalty(state, nowMs, params, cost) {
    const { capacity, refill, intervalMs } = params;
    const scaled = refilled(state, nowMs, params);
    const left = Math.max(scaled - cost * intervalMs, Math.min(scaled, -MAX_SPAN_MS * refill));
    const next = { scaled: left, lastMs: state === undefined ? nowMs : Math.max(nowMs, state.lastMs) };
    return leftAfter(tokenBucket, state, next, Math.ceil((capacity * intervalMs - left) / refill), nowMs, params);
  },
};

/** The scaled tokens at `nowMs`: full without a state; a clock that steps back refills nothing. */
function refilled(state: TokenBucketState | undefined, nowMs: number, { capacity, refill, intervalMs }: TokenBucketParams): number {
  const full = capacity * intervalMs;
  if (state === undefined) return full;
  const elapsed = nowMs > state.lastMs ? nowMs - state.lastMs : 0;
  return Math.min(full, state.scaled + elapsed * refill);
}
