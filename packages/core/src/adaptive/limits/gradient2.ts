import { checkBounds, numberWithin, ofLimit, wholeAtLeast } from '../checks.js';
import { addToExpAvg, EMPTY_EXP_AVG, type ExpAvg } from './exp-avg.js';
import { applyOfLimit, type LimitAlgorithm, type LimitSample, type OfLimit } from './sample.js';

export interface Gradient2Options {
  /** Default 20. */
  initialLimit?: number;
  /** Default 20 (or `maxLimit` when lower). */
  minLimit?: number;
  /** Default 200. */
  maxLimit?: number;
  /** Weight of the new limit against the old one, from 0 to 1. Default 0.2. */
  smoothing?: number;
  /** Requests allowed to queue on top of the limit the gradient gives. Default 4. */
  queueSize?: OfLimit;
  /** Samples the long average spans. Default 600. */
  longWindow?: number;
  /** How far the short round trip may exceed the long one before the limit shrinks (≥ 1). Default 1.5. */
  rttTolerance?: number;
}

export const GRADIENT2_FIELDS = {
  initialLimit: true,
  minLimit: true,
  maxLimit: true,
  smoothing: true,
  queueSize: true,
  longWindow: true,
  rttTolerance: true,
} as const satisfies Record<keyof Gradient2Options, true>;

export interface Gradient2State {
  readonly limit: number;
  /** The limit before rounding down (smoothing moves it by fractions). */
  readonly estimate: number;
  readonly longRtt: ExpAvg;
}

interface Gradient2Params {
  readonly minLimit: number;
  readonly maxLimit: number;
  readonly smoothing: number;
  readonly queueSize: OfLimit;
  readonly longWindow: number;
  readonly rttTolerance: number;
}

/** Netflix's `ExpAvgMeasurement(longWindow, 10)`: the long average is a plain mean over its first 10 samples. */
const LONG_RTT_WARMUP = 10;

/**
 * Netflix concurrency-limits' `Gradient2Limit` (limit/Gradient2Limit.java): the gradient
 * rttTolerance × longRtt / shortRtt, held within [0.5, 1], scales the limit, plus a queue
 * allowance: newLimit = limit × gradient + queueSize, smoothed. The short round trip is the
 * sample's; the long one an exponential average over `longWindow` samples. When the long average
 * is more than twice the short one (latency back to normal after a long overload), it decays by 5 %
 * per sample instead of waiting for the average, so the limit recovers sooner.
 */
export function gradient2Step(params: Gradient2Params, state: Gradient2State, sample: LimitSample): Gradient2State {
  const shortRtt = sample.rttMs;
  if (!(shortRtt > 0)) return state;
  let longRtt = addToExpAvg(state.longRtt, shortRtt, params.longWindow, LONG_RTT_WARMUP);
  const longRttMs = longRtt.value;
  if (longRttMs / shortRtt > 2) longRtt = { ...longRtt, value: longRtt.value * 0.95 };
  // Application-limited: too few requests in flight to say anything about the limit.
  if (sample.inflight < state.estimate / 2) return { ...state, longRtt };
  // Netflix's Gradient2 ignores drops; here a drop takes the steepest gradient (as proposed in
  // Netflix/concurrency-limits PR #134), so every loss signal (a 5xx, a timeout, event-loop delay)
  // moves the limit down as it does for AIMD and Vegas.
  const gradient = sample.dropped ? 0.5 : Math.max(0.5, Math.min(1, (params.rttTolerance * longRttMs) / shortRtt));
  const queueSize = Math.floor(applyOfLimit(params.queueSize, Math.floor(state.estimate)));
  const target = state.estimate * gradient + queueSize;
  const smoothed = state.estimate * (1 - params.smoothing) + target * params.smoothing;
  const estimate = Math.max(params.minLimit, Math.min(params.maxLimit, smoothed));
  return { limit: Math.floor(estimate), estimate, longRtt };
}

export function createGradient2(options: Gradient2Options, path: string): LimitAlgorithm<Gradient2State> {
  const maxLimit = wholeAtLeast(options.maxLimit, 1, `${path}maxLimit`, 200);
  const params: Gradient2Params = {
    minLimit: wholeAtLeast(options.minLimit, 1, `${path}minLimit`, Math.min(20, maxLimit)),
    maxLimit,
    smoothing: numberWithin(options.smoothing, [0, 1], `${path}smoothing`, 0.2),
    queueSize: ofLimit(options.queueSize, `${path}queueSize`, 4),
    longWindow: wholeAtLeast(options.longWindow, 1, `${path}longWindow`, 600),
    rttTolerance: numberWithin(options.rttTolerance, [1, Number.MAX_VALUE], `${path}rttTolerance`, 1.5),
  };
  const limit = wholeAtLeast(options.initialLimit, 1, `${path}initialLimit`, Math.max(params.minLimit, Math.min(20, maxLimit)));
  checkBounds(path, params.minLimit, limit, maxLimit);
  return {
    name: 'gradient2',
    initial: { limit, estimate: limit, longRtt: EMPTY_EXP_AVG },
    step: (state, sample) => gradient2Step(params, state, sample),
    estimates: (state) => (state.longRtt.count > 0 ? { longRttMs: state.longRtt.value } : {}),
  };
}
