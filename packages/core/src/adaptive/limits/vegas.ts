import { booleanOr, checkBounds, functionOr, numberWithin, ofLimit, wholeAtLeast } from '../checks.js';
import { log10Root } from './log10-root.js';
import { applyOfLimit, type LimitAlgorithm, type LimitSample, type OfLimit } from './sample.js';

export interface VegasOptions {
  /** Default 20. */
  initialLimit?: number;
  /** Default 1000. */
  maxLimit?: number;
  /** Estimated queue below which the limit grows by `increase`. Default 3 × log10(limit). */
  alpha?: OfLimit;
  /** Estimated queue above which the limit shrinks by `decrease`. Default 6 × log10(limit). */
  beta?: OfLimit;
  /** Estimated queue up to which the limit grows by `beta` at once. Default log10(limit). */
  threshold?: OfLimit;
  /** The limit after a moderate increase. Default limit + log10(limit). */
  increase?: (limit: number) => number;
  /**
   * The limit after a decrease (and after a drop). Default limit − log10(limit); when the queue is
   * above `beta` and the limit moves once per round trip, down to the limit that leaves `beta`
   * queued if that is lower (one move a round trip must cover what per-sample moves did).
   */
  decrease?: (limit: number) => number;
  /** Weight of the new limit against the old one, from 0 to 1. Default 1 (no smoothing). */
  smoothing?: number;
  /**
   * Every probeMultiplier × limit samples (jittered ×0.5–1) the limit is halved until a request that
   * started with at most that many in flight measures the no-load round trip afresh. Default 30.
   */
  probeMultiplier?: number;
  /**
   * After the limit moves, the next `limit` samples (requests already in flight, which measured the
   * old limit) do not move it again: at most one move per round trip, as TCP Vegas. Default true;
   * false moves it on every sample, as Netflix's `VegasLimit`.
   */
  oncePerRoundTrip?: boolean;
  /** Draws the probe jitter, in [0, 1). Default `Math.random`. */
  random?: () => number;
}

export const VEGAS_FIELDS = {
  initialLimit: true,
  maxLimit: true,
  alpha: true,
  beta: true,
  threshold: true,
  increase: true,
  decrease: true,
  smoothing: true,
  probeMultiplier: true,
  oncePerRoundTrip: true,
  random: true,
} as const satisfies Record<keyof VegasOptions, true>;

export interface VegasState {
  readonly limit: number;
  /** The limit before rounding down (smoothing moves it by fractions). */
  readonly estimate: number;
  /** 0 until the first sample. */
  readonly noLoadRttMs: number;
  readonly probeCount: number;
  readonly probeJitter: number;
  /** True while the limit is halved to measure the no-load round trip. */
  readonly probing: boolean;
  /** While probing: the limit before it, which the partitions' shares are still taken of. */
  readonly sharedLimit?: number | undefined;
  /** Samples left before the limit may move again. */
  readonly holdFor: number;
}

interface VegasParams {
  readonly maxLimit: number;
  readonly alpha: OfLimit;
  readonly beta: OfLimit;
  readonly threshold: OfLimit;
  readonly increase: (limit: number) => number;
  /** `excess`: how far the estimated queue is above `beta` (0 on a drop). */
  readonly decrease: (limit: number, excess: number) => number;
  readonly smoothing: number;
  readonly probeMultiplier: number;
  readonly oncePerRoundTrip: boolean;
  readonly random: () => number;
}

const jitter = (random: () => number): number => 0.5 + 0.5 * random();

/**
 * TCP Vegas applied to concurrency, as Netflix concurrency-limits' `VegasLimit`
 * (limit/VegasLimit.java): the queue is estimated as limit × (1 − noLoadRtt / rtt); a smaller round
 * trip replaces the no-load one. Two departures, both from TCP Vegas and Envoy's adaptive
 * concurrency filter rather than Netflix: the limit moves at most once per round trip
 * (`oncePerRoundTrip`), and the periodic probe of the no-load round trip halves the limit until a
 * request sent at that concurrency measures it (Envoy's `min_rtt_calc_interval`, pinning
 * concurrency low), where Netflix takes any current round trip, queue included, so that under
 * sustained overload every probe raised the no-load round trip and with it the limit.
 */
export function vegasStep(params: VegasParams, state: VegasState, sample: LimitSample): VegasState {
  if (!(sample.rttMs > 0)) return state;
  if (state.probing) return probed(params, state, sample);
  const probeCount = state.probeCount + 1;
  if (state.probeJitter * params.probeMultiplier * state.estimate <= probeCount) {
    const limit = Math.max(1, Math.floor(state.estimate / 2));
    return { ...state, probing: true, limit, sharedLimit: state.limit, probeCount: 0 };
  }
  if (state.noLoadRttMs === 0 || sample.rttMs < state.noLoadRttMs) return { ...state, noLoadRttMs: sample.rttMs, probeCount };
  if (state.holdFor > 0) return { ...state, probeCount, holdFor: state.holdFor - 1 };
  const estimate = nextEstimate(params, state, sample);
  const limit = Math.floor(estimate);
  const holdFor = params.oncePerRoundTrip && limit !== state.limit ? limit : 0;
  return { ...state, probeCount, estimate, limit, holdFor };
}

/** While probing: a request sent with no more in flight than the probe's limit gives the no-load round trip. */
function probed(params: VegasParams, state: VegasState, sample: LimitSample): VegasState {
  if (sample.inflight > state.limit) return state;
  const limit = Math.floor(state.estimate);
  return {
    ...state,
    noLoadRttMs: sample.rttMs,
    probing: false,
    probeJitter: jitter(params.random),
    limit,
    sharedLimit: undefined,
    // The requests sent under the probe's limit, and those let in as it comes back (into a pool
    // still draining), say nothing about this one.
    holdFor: params.oncePerRoundTrip ? state.limit + limit : 0,
  };
}

function nextEstimate(params: VegasParams, state: VegasState, sample: LimitSample): number {
  const { estimate } = state;
  const whole = Math.floor(estimate);
  const queue = Math.ceil(estimate * (1 - state.noLoadRttMs / sample.rttMs));
  let next: number;
  if (sample.dropped) next = params.decrease(estimate, 0);
  // Not close to the limit: the samples say nothing about it, so it must not drift up.
  else if (sample.inflight * 2 < estimate) return estimate;
  else if (queue <= Math.floor(applyOfLimit(params.threshold, whole))) next = estimate + Math.floor(applyOfLimit(params.beta, whole));
  else if (queue < Math.floor(applyOfLimit(params.alpha, whole))) next = params.increase(estimate);
  else if (queue > Math.floor(applyOfLimit(params.beta, whole)))
    next = params.decrease(estimate, queue - Math.floor(applyOfLimit(params.beta, whole)));
  else return estimate;
  next = Math.max(1, Math.min(params.maxLimit, next));
  return (1 - params.smoothing) * estimate + params.smoothing * next;
}

const stepOf = (limit: number): number => log10Root(Math.floor(limit));

export function createVegas(options: VegasOptions, path: string): LimitAlgorithm<VegasState> {
  const oncePerRoundTrip = booleanOr(options.oncePerRoundTrip, `${path}oncePerRoundTrip`, true);
  const params: VegasParams = {
    maxLimit: wholeAtLeast(options.maxLimit, 1, `${path}maxLimit`, 1000),
    alpha: ofLimit(options.alpha, `${path}alpha`, (limit) => 3 * log10Root(limit)),
    beta: ofLimit(options.beta, `${path}beta`, (limit) => 6 * log10Root(limit)),
    threshold: ofLimit(options.threshold, `${path}threshold`, log10Root),
    increase: functionOr(options.increase, `${path}increase`, (limit: number) => limit + stepOf(limit)),
    decrease: functionOr(
      options.decrease,
      `${path}decrease`,
      oncePerRoundTrip
        ? (limit: number, excess: number) => limit - Math.max(stepOf(limit), excess)
        : (limit: number) => limit - stepOf(limit),
    ),
    smoothing: numberWithin(options.smoothing, [0, 1], `${path}smoothing`, 1),
    probeMultiplier: wholeAtLeast(options.probeMultiplier, 1, `${path}probeMultiplier`, 30),
    oncePerRoundTrip,
    random: functionOr(options.random, `${path}random`, Math.random),
  };
  const limit = wholeAtLeast(options.initialLimit, 1, `${path}initialLimit`, Math.min(20, params.maxLimit));
  checkBounds(path, 1, limit, params.maxLimit);
  return {
    name: 'vegas',
    initial: { limit, estimate: limit, noLoadRttMs: 0, probeCount: 0, probeJitter: jitter(params.random), probing: false, holdFor: 0 },
    step: (state, sample) => vegasStep(params, state, sample),
    estimates: (state) => (state.noLoadRttMs > 0 ? { noLoadRttMs: state.noLoadRttMs } : {}),
  };
}
