import { invalidSpec } from '../../errors.js';
import { warmUpLua } from '../../lua/sources.generated.js';
import { emissionIntervalUs, MAX_SPAN_MS, positiveNumber, span } from '../fields.js';
import { leftAfter } from '../refund.js';
import type { Algorithm, StepResult } from '../types.js';

/**
 * Guava SmoothWarmingUp's constants, derived once from the spec (times in microseconds).
 * The Lua step receives them as they are, so both stores work with the very same doubles.
 */
export interface WarmUpParams {
  /** Interval between permits at the stable rate, in whole microseconds. */
  stableUs: number;
  /** Stored permits below which a permit costs `stableUs`. */
  thresholdPermits: number;
  /** Stored permits of a fully cold limiter. */
  maxPermits: number;
  /** How much a permit's cost grows per stored permit above the threshold. */
  slope: number;
  /** Idle time that stores one permit: `warmup / maxPermits`, so cooling down fully takes `warmup`. */
  coolDownUs: number;
}

const WARM_UP_FIELDS = { rate: 'rate', period: 'duration', warmup: 'duration', coldFactor: 'factor' } as const;

export interface WarmUpState {
  storedPermits: number;
  /** When the next request may pass, in whole epoch microseconds (Guava's schedule, not rounded to ms). */
  nextFreeUs: number;
}

/**
 * Guava's `storedPermitsToWaitTime`: the area under the cost curve (a trapezoid above the
 * threshold, a rectangle below it) for spending `take` of the `stored` permits.
 */
function storedPermitsToWaitTime(stored: number, take: number, p: WarmUpParams): number {
  const above = stored - p.thresholdPermits;
  let micros = 0;
  let rest = take;
  if (above > 0) {
    const takeAbove = Math.min(above, rest);
    const length = p.stableUs + above * p.slope + (p.stableUs + (above - takeAbove) * p.slope);
    micros = Math.floor((takeAbove * length) / 2);
    rest = rest - takeAbove;
  }
  return micros + Math.floor(p.stableUs * rest);
}

/**
 * Warm-up (Guava's RateLimiter SmoothWarmingUp), non-blocking: a request passes when the next
 * permit is free now, and pays for its permits by pushing the next free time forward. An
 * idle limiter stores permits up to `maxPermits`; stored permits above the threshold are
 * expensive (up to `coldFactor` × the stable interval), so after idleness the rate ramps
 * up linearly from rate/coldFactor to the stable rate over `warmup`.
 */
export const warmUp: Algorithm<WarmUpParams, WarmUpState, typeof WARM_UP_FIELDS, 'warm-up'> = {
  name: 'warm-up',
  lua: warmUpLua,
  fields: WARM_UP_FIELDS,
  denialHoldsUntilRetry: true,
  // Kept until fully cold at the rate that wrote it.
  ttlDependsOnValues: true,

  parse(spec, at) {
    const rate = positiveNumber(spec, 'rate', at);
    const stableUs = emissionIntervalUs(rate, span(spec, 'period', at, 1000), at('rate'));
    const warmupUs = span(spec, 'warmup', at) * 1000;
    const coldFactor = spec.coldFactor ?? 3;
    if (typeof coldFactor !== 'number' || !Number.isFinite(coldFactor) || coldFactor < 1) {
      throw invalidSpec(at('coldFactor'), 'must be a finite number >= 1', coldFactor);
    }
    const coldUs = stableUs * coldFactor;
    if (coldUs > MAX_SPAN_MS * 1000)
      throw invalidSpec(at('coldFactor'), 'is too high: the cold interval must be at most 50 years', coldFactor);
    const thresholdPermits = (0.5 * warmupUs) / stableUs;
    const maxPermits = thresholdPermits + (2 * warmupUs) / (stableUs + coldUs);
    const slope = (coldUs - stableUs) / (maxPermits - thresholdPermits);
    return { stableUs, thresholdPermits, maxPermits, slope, coolDownUs: warmupUs / maxPermits };
  },

  luaArgs: (p) => [p.stableUs, p.thresholdPermits, p.maxPermits, p.slope, p.coolDownUs],
  limit: () => 1,
  policy: (p) => ({ quota: 1, windowMs: p.stableUs / 1000, refillMs: 0 }),

  step(state, nowMs, p, cost) {
    const nowUs = nowMs * 1000;
    const { storedPermits, nextFreeUs } = resynced(state, nowUs, p);
    if (cost * p.stableUs > MAX_SPAN_MS * 1000) {
      // Its wait would outlast any state Tollgate keeps: such a cost can never pass.
      const resetAfterMs = Math.ceil((nextFreeUs - nowUs) / 1000);
      const remaining = resetAfterMs > 0 ? 0 : 1;
      return { allowed: false, remaining, resetAfterMs, retryAfterMs: Infinity, delayMs: 0, next: undefined, ttlMs: 0 };
    }
    if (nextFreeUs > nowUs) {
      const retryAfterMs = Math.ceil((nextFreeUs - nowUs) / 1000);
      return { allowed: false, remaining: 0, resetAfterMs: retryAfterMs, retryAfterMs, delayMs: 0, next: undefined, ttlMs: 0 };
    }
    return paid(storedPermits, nextFreeUs, cost, nowUs, p);
  },

  /**
   * Pays for `cost` permits as an admitted request does, from the next free time even when it is
   * still ahead; no more permits than push it 50 years (`MAX_SPAN_MS`) past now at the stable rate.
   */
  penalty(state, nowMs, p, cost) {
    const nowUs = nowMs * 1000;
    const { storedPermits, nextFreeUs } = resynced(state, nowUs, p);
    const room = Math.max(0, Math.floor((nowUs + MAX_SPAN_MS * 1000 - nextFreeUs) / p.stableUs));
    const { next, ttlMs } = paid(storedPermits, nextFreeUs, Math.min(cost, room), nowUs, p);
    return leftAfter(warmUp, state, next, ttlMs, nowMs, p);
  },
};

/** The state as seen at `nowUs`: permits stored while idle (Guava's resync); no state is fully cold. */
function resynced(state: WarmUpState | undefined, nowUs: number, p: WarmUpParams): WarmUpState {
  if (state === undefined) return { storedPermits: p.maxPermits, nextFreeUs: nowUs };
  // At most the maximum of these params: a state stored under others (a rate chosen per call) may hold more.
  let stored = Math.min(p.maxPermits, state.storedPermits);
  let nextFreeUs = state.nextFreeUs;
  if (nowUs > nextFreeUs) {
    // Clocks tick in whole ms: a caller back at the first tick after nextFreeUs (its
    // retryAfterMs) is on time, so only the time past that tick is idle and stores permits.
    // Fully cold, it starts afresh from now, exactly as with no state at all.
    const idleUs = nowUs - Math.ceil(nextFreeUs / 1000) * 1000;
    stored += idleUs / p.coolDownUs;
    nextFreeUs = stored >= p.maxPermits ? nowUs : nextFreeUs + idleUs;
    stored = Math.min(p.maxPermits, stored);
  }
  return { storedPermits: stored, nextFreeUs };
}

/** Pays for `cost` permits: stored ones first, at their cost, then fresh ones at the stable interval. */
function paid(stored: number, nextFreeUs: number, cost: number, nowUs: number, p: WarmUpParams): StepResult<WarmUpState> {
  const spend = Math.min(cost, stored);
  const waitUs = storedPermitsToWaitTime(stored, spend, p) + Math.floor((cost - spend) * p.stableUs);
  const next = { storedPermits: stored - spend, nextFreeUs: nextFreeUs + waitUs };
  const resetAfterMs = Math.max(0, Math.ceil((next.nextFreeUs - nowUs) / 1000));
  // Kept until fully cold again (then equal to no state), plus 1 ms against rounding.
  const coolMs = Math.ceil(((p.maxPermits - next.storedPermits) * p.coolDownUs) / 1000);
  return {
    allowed: true,
    remaining: next.nextFreeUs > nowUs ? 0 : 1,
    resetAfterMs,
    retryAfterMs: 0,
    delayMs: 0,
    next,
    ttlMs: resetAfterMs + coolMs + 1,
  };
}
