import { invalidSpec } from '../../errors.js';
import { leakyBucketLua } from '../../lua/sources.generated.js';
import { burstWithinSpan, emissionIntervalUs, oneOfValues, positiveInteger, positiveNumber, span } from '../fields.js';
import { leftAfter } from '../refund.js';
import { oneOf } from '../spec-fields.js';
import type { Algorithm } from '../types.js';
import { type PolicingParams, type PolicingState, policingPenalty, policingRefund, policingStep } from './policing.js';
import { type ShapingParams, type ShapingState, shapingPenalty, shapingRefund, shapingStep } from './shaping.js';

export type LeakyBucketParams = PolicingParams | ShapingParams;
export type LeakyBucketState = PolicingState | ShapingState;

const LEAKY_BUCKET_FIELDS = {
  rate: 'rate',
  period: 'duration',
  burst: 'count',
  mode: oneOf('policing', 'shaping'),
  maxDelay: 'duration',
} as const;

/**
 * Leaky bucket (the algorithm behind nginx's limit_req), in two modes: `policing` meters the water level, which
 * drains at `rate`, and denies what would overflow `burst`; `shaping` admits a request
 * with the `delayMs` that makes requests leave at exactly `rate`, while that wait stays
 * within `maxDelay`, and denies beyond it.
 */
export const leakyBucket: Algorithm<LeakyBucketParams, LeakyBucketState, typeof LEAKY_BUCKET_FIELDS, 'leaky-bucket'> = {
  name: 'leaky-bucket',
  lua: leakyBucketLua,
  fields: LEAKY_BUCKET_FIELDS,
  denialHoldsUntilRetry: true,

  parse(spec, at) {
    const rate = positiveNumber(spec, 'rate', at);
    const intervalUs = emissionIntervalUs(rate, span(spec, 'period', at, 1000), at('rate'));
    const mode = oneOfValues(spec, 'mode', at, LEAKY_BUCKET_FIELDS.mode);
    if (mode === 'policing') {
      if (spec.maxDelay !== undefined) throw invalidSpec(at('maxDelay'), "is only used with mode: 'shaping'", spec.maxDelay);
      const burst = positiveInteger(spec, 'burst', at, Math.max(1, Math.ceil(rate)));
      return { mode, intervalUs, burst: burstWithinSpan(burst, intervalUs, at('burst')) };
    }
    if (spec.burst !== undefined) {
      throw invalidSpec(at('burst'), "is not used with mode: 'shaping' (the queue is bounded by maxDelay)", spec.burst);
    }
    const maxDelayUs = span(spec, 'maxDelay', at) * 1000;
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

  refund(state, nowMs, params, cost, charge) {
    const next =
      params.mode === 'policing'
        ? policingRefund(state as PolicingState | undefined, nowMs, params, cost, charge)
        : shapingRefund(state as ShapingState | undefined, nowMs, params, cost, charge);
    return leftAfter(leakyBucket, state, next?.state, next?.ttlMs ?? 0, nowMs, params);
  },

  penalty(state, nowMs, params, cost) {
    const next =
      params.mode === 'policing'
        ? policingPenalty(state as PolicingState | undefined, nowMs, params, cost)
        : shapingPenalty(state as ShapingState | undefined, nowMs, params, cost);
    return leftAfter(leakyBucket, state, next.state, next.ttlMs, nowMs, params);
  },
};
