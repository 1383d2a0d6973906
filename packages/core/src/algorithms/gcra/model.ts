import { gcraLua } from '../../lua/sources.generated.js';
import {
  burstWithinSpan,
  emissionIntervalUs,
  MAX_SPAN_MS,
  positiveInteger,
  positiveNumber,
  RESERVE_FIELDS,
  reserveDelayMs,
  span,
} from '../fields.js';
import { heldByCharge, leftAfter, nothingToRefund, unitsBack } from '../refund.js';
import type { Algorithm } from '../types.js';

export interface GcraParams {
  /** Emission interval T in whole microseconds: integer arithmetic keeps both stores exact. */
  intervalUs: number;
  burst: number;
  /** Reserve mode: how far beyond the burst a request may borrow, as a wait in microseconds; 0 rejects instead. */
  maxDelayUs: number;
}

/** Theoretical arrival time in epoch microseconds. */
export type GcraState = number;

const GCRA_FIELDS = { rate: 'rate', period: 'duration', burst: 'count', ...RESERVE_FIELDS } as const;

/**
 * GCRA (ITU-T I.371's virtual scheduling), "future state" variant as redis-cell and throttled use it: the TAT a request would leave behind is
 * checked before it is admitted, so exactly `burst` simultaneous requests pass. In reserve
 * mode a request beyond the burst is admitted with `delayMs` (the wait until its emission
 * time) when that wait is at most `maxDelay`.
 */
export const gcra: Algorithm<GcraParams, GcraState, typeof GCRA_FIELDS, 'gcra'> = {
  name: 'gcra',
  lua: gcraLua,
  fields: GCRA_FIELDS,
  denialHoldsUntilRetry: true,

  parse(spec, at) {
    const rate = positiveNumber(spec, 'rate', at);
    const intervalUs = emissionIntervalUs(rate, span(spec, 'period', at, 1000), at('rate'));
    const burst = positiveInteger(spec, 'burst', at, Math.max(1, Math.ceil(rate)));
    return { intervalUs, burst: burstWithinSpan(burst, intervalUs, at('burst')), maxDelayUs: reserveDelayMs(spec, at) * 1000 };
  },

  luaArgs: (p) => [p.intervalUs, p.burst, p.maxDelayUs],
  limit: (p) => p.burst + Math.floor(p.maxDelayUs / p.intervalUs),
  // Reserve mode advertises what it admits (the burst plus what it may borrow), as `remaining` counts it.
  policy: (p) => {
    const quota = gcra.limit(p);
    return { quota, windowMs: (p.intervalUs * quota) / 1000, refillMs: ((p.burst - 1) * p.intervalUs + p.maxDelayUs) / 1000 };
  },
  reserving: (p, maxDelayMs) => ({ ...p, maxDelayUs: maxDelayMs * 1000 }),

  step(tat, nowMs, { intervalUs, burst, maxDelayUs }, cost) {
    const nowUs = nowMs * 1000;
    const tolerance = intervalUs * burst;
    const base = tat === undefined || tat < nowUs ? nowUs : tat;
    const remaining = Math.max(0, Math.floor((nowUs + tolerance + maxDelayUs - base) / intervalUs));
    const resetAfterMs = Math.ceil((base - nowUs) / 1000);
    if (intervalUs * cost > tolerance + maxDelayUs) {
      return { allowed: false, remaining, resetAfterMs, retryAfterMs: Infinity, delayMs: 0, next: undefined, ttlMs: 0 };
    }
    const newTat = base + intervalUs * cost;
    const allowAt = newTat - tolerance;
    if (nowUs + maxDelayUs < allowAt) {
      const retryAfterMs = Math.ceil((allowAt - maxDelayUs - nowUs) / 1000);
      return { allowed: false, remaining, resetAfterMs, retryAfterMs, delayMs: 0, next: undefined, ttlMs: 0 };
    }
    const resetAfter = Math.ceil((newTat - nowUs) / 1000);
    return {
      allowed: true,
      remaining: Math.floor((nowUs + tolerance + maxDelayUs - newTat) / intervalUs),
      resetAfterMs: resetAfter,
      retryAfterMs: 0,
      delayMs: allowAt > nowUs ? Math.ceil((allowAt - nowUs) / 1000) : 0,
      next: newTat,
      ttlMs: resetAfter,
    };
  },

  /**
   * Moves the TAT back by `cost` emission intervals, but not before now; with a charge, by at
   * most the part of it not yet emitted (`heldByCharge`).
   */
  refund(tat, nowMs, params, cost, charge) {
    const nowUs = nowMs * 1000;
    const { intervalUs } = params;
    const backUs = Math.min(intervalUs * unitsBack(cost, charge), heldByCharge(charge, nowMs, intervalUs, 1000));
    if (tat === undefined || tat <= nowUs || backUs <= 0) return nothingToRefund(gcra, tat, nowMs, params);
    const newTat = Math.max(nowUs, tat - backUs);
    return leftAfter(gcra, tat, newTat, Math.ceil((newTat - nowUs) / 1000), nowMs, params);
  },

  /**
   * Moves the TAT on by `cost` emission intervals (from now when it is past), even beyond the
   * burst, but never more than 50 years (`MAX_SPAN_MS`) past now.
   */
  penalty(tat, nowMs, params, cost) {
    const nowUs = nowMs * 1000;
    const base = tat === undefined || tat < nowUs ? nowUs : tat;
    const newTat = Math.min(base + params.intervalUs * cost, Math.max(base, nowUs + MAX_SPAN_MS * 1000));
    return leftAfter(gcra, tat, newTat, Math.ceil((newTat - nowUs) / 1000), nowMs, params);
  },
};
