import { checkBounds, functionOr, numberWithin, ofLimit, wholeAtLeast } from '../checks.js';
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
  /** The limit after a decrease (and after a drop). Default limit − log10(limit). */
  decrease?: (limit: number) => number;
  /** Weight of the new limit against the old one, from 0 to 1. Default 1 (no smoothing). */
  smoothing?: number;
  /** The no-load round trip is measured afresh every probeMultiplier × limit samples (jittered ×0.5–1). Default 30. */
  probeMultiplier?: number;
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
}

interface VegasParams {
  readonly maxLimit: number;
  readonly alpha: OfLimit;
  readonly beta: OfLimit;
  readonly threshold: OfLimit;
  readonly increase: (limit: number) => number;
  readonly decrease: (limit: number) => number;
  readonly smoothing: number;
  readonly probeMultiplier: number;
  readonly random: () => number;
}

const jitter = (random: () => number): number => 0.5 + 0.5 * random();

/**
 * TCP Vegas applied to concurrency, as Netflix concurrency-limits' `VegasLimit`
 * (limit/VegasLimit.java): the queue is estimated as limit × (1 − noLoadRtt / rtt). Every
 * probeMultiplier × limit samples (jittered) the current round trip becomes the no-load one, so a
 * stale minimum cannot pin the limit; otherwise a smaller round trip replaces it.
 */
export function vegasStep(params: VegasParams, state: VegasState, sample: LimitSample): VegasState {
  if (!(sample.rttMs > 0)) return state;
  const probeCount = state.probeCount + 1;
  if (state.probeJitter * params.probeMultiplier * state.estimate <= probeCount) {
    return { ...state, noLoadRttMs: sample.rttMs, probeCount: 0, probeJitter: jitter(params.random) };
  }
  if (state.noLoadRttMs === 0 || sample.rttMs < state.noLoadRttMs) return { ...state, noLoadRttMs: sample.rttMs, probeCount };
  const estimate = nextEstimate(params, state, sample);
  return { ...state, probeCount, estimate, limit: Math.floor(estimate) };
}

function nextEstimate(params: VegasParams, state: VegasState, sample: LimitSample): number {
  const { estimate } = state;
  const whole = Math.floor(estimate);
  const queue = Math.ceil(estimate * (1 - state.noLoadRttMs / sample.rttMs));
  let next: number;
  if (sample.dropped) next = params.decrease(estimate);
  // Not close to the limit: the samples say nothing about it, so it must not drift up.
  else if (sample.inflight * 2 < estimate) return estimate;
  else if (queue <= Math.floor(applyOfLimit(params.threshold, whole))) next = estimate + Math.floor(applyOfLimit(params.beta, whole));
  else if (queue < Math.floor(applyOfLimit(params.alpha, whole))) next = params.increase(estimate);
  else if (queue > Math.floor(applyOfLimit(params.beta, whole))) next = params.decrease(estimate);
  else return estimate;
  next = Math.max(1, Math.min(params.maxLimit, next));
  return (1 - params.smoothing) * estimate + params.smoothing * next;
}

export function createVegas(options: VegasOptions, path: string): LimitAlgorithm<VegasState> {
  const params: VegasParams = {
    maxLimit: wholeAtLeast(options.maxLimit, 1, `${path}maxLimit`, 1000),
    alpha: ofLimit(options.alpha, `${path}alpha`, (limit) => 3 * log10Root(limit)),
    beta: ofLimit(options.beta, `${path}beta`, (limit) => 6 * log10Root(limit)),
    threshold: ofLimit(options.threshold, `${path}threshold`, log10Root),
    increase: functionOr(options.increase, `${path}increase`, (limit: number) => limit + log10Root(Math.floor(limit))),
    decrease: functionOr(options.decrease, `${path}decrease`, (limit: number) => limit - log10Root(Math.floor(limit))),
    smoothing: numberWithin(options.smoothing, [0, 1], `${path}smoothing`, 1),
    probeMultiplier: wholeAtLeast(options.probeMultiplier, 1, `${path}probeMultiplier`, 30),
    random: functionOr(options.random, `${path}random`, Math.random),
  };
  const limit = wholeAtLeast(options.initialLimit, 1, `${path}initialLimit`, Math.min(20, params.maxLimit));
  checkBounds(path, 1, limit, params.maxLimit);
  return {
    name: 'vegas',
    initial: { limit, estimate: limit, noLoadRttMs: 0, probeCount: 0, probeJitter: jitter(params.random) },
    step: (state, sample) => vegasStep(params, state, sample),
    estimates: (state) => (state.noLoadRttMs > 0 ? { noLoadRttMs: state.noLoadRttMs } : {}),
  };
}
