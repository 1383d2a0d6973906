import { invalidSpec } from '../../errors.js';
import { leakyBucketLua } from '../../lua/sources.generated.js';
import { burstWithinSpan, emissionIntervalUs, positiveInteger, positiveNumber, span } from '../fields.js';
import { refunded } from '../refund.js';
import type { Algorithm } from '../types.js';
import { type PolicingParams, type PolicingState, policingRefund, policingStep } from './policing.js';
import { type ShapingParams, type ShapingState, shapingRefund, shapingStep } from './shaping.js';

export type LeakyBucketParams = PolicingParams | ShapingParams;
export type LeakyBucketState = PolicingState | ShapingState;

/**
 * Leaky bucket (the algorithm behind nginx's limit_req), in two modes: `policing` meters the water level, which
 * drains at `rate`, and denies what would overflow `burst`; `shaping` admits a request
 * with the `delayMs` that makes requests leave at exactly `rate`, while that wait stays
 * within `maxDelay`, and denies beyond it.
 */
export const leakyBucket: Algorithm<LeakyBucketParams, LeakyBucketState> = {
  name: 'leaky-bucket',
  lua: leakyBucketLua,
  denialHoldsUntilRetry: true,

  parse(spec, path) {
    const mode = spec.mode ?? 'policing';
    const rate = positiveNumber(spec, 'rate', path);
    const intervalUs = emissionIntervalUs(rate, span(spec, 'period', path, 1000), path);
    if (mode === 'policing') {
      if (spec.maxDelay !== undefined) throw invalidSpec(`${path}.maxDelay`, "is only used with mode: 'shaping'", spec.maxDelay);
      const burst = positiveInteger(spec, 'burst', path, Math.max(1, Math.ceil(rate)));
      return { mode, intervalUs, burst: burstWithinSpan(burst, intervalUs, `${path}.burst`) };
    }
    if (mode !== 'shaping') throw invalidSpec(`${path}.mode`, "must be 'policing' or 'shaping'", mode);
    if (spec.burst !== undefined) {
      throw invalidSpec(`${path}.burst`, "is not used with mode: 'shaping' (the queue is bounded by maxDelay)", spec.burst);
    }
    const maxDelayUs = span(spec, 'maxDelay', path) * 1000;
    return { mode, intervalUs, maxDelayUs, capacity: Math.floor(maxDelayUs / intervalUs) + 1 };
  },

  luaArgs: (p) => (p.mode === 'policing' ? [0, p.intervalUs, p.burst] : [1, p.intervalUs, p.maxDelayUs]),
  limit: (p) => (p.mode === 'policing' ? p.burst : p.capacity),
  policy: (p) => {
    const quota = p.mode === 'policing' ? p.burst : p.capacity;
    const refillMs = p.mode === 'policing' ? ((p.burst - 1) * p.intervalUs) / 1000 : p.maxDelayUs / 1000;
    return { quota, windowMs: (quota * p.intervalUs) / 1000, refillMs };
  },

  /** Shaping hands out departure slots; the policing meter has no future slot to give. */
  reserving: (p, maxDelayMs) =>
    p.mode === 'shaping'
      ? { ...p, maxDelayUs: maxDelayMs * 1000, capacity: Math.floor((maxDelayMs * 1000) / p.intervalUs) + 1 }
      : undefined,

  step(state, nowMs, params, cost) {
    return params.mode === 'policing'
      ? policingStep(state as PolicingState | undefined, nowMs, params, cost)
      : shapingStep(state as ShapingState | undefined, nowMs, params, cost);
  },

  refund(state, nowMs, params, cost) {
    const next =
      params.mode === 'policing'
        ? policingRefund(state as PolicingState | undefined, nowMs, params, cost)
        : shapingRefund(state as ShapingState | undefined, nowMs, params, cost);
    return refunded(leakyBucket, state, next?.state, next?.ttlMs ?? 0, nowMs, params);
  },
};
