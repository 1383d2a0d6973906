import { checkBounds, numberWithin, wholeAtLeast } from '../checks.js';
import type { LimitAlgorithm, LimitSample, LimitState } from './sample.js';

export interface AimdOptions {
  /** Default 20, kept within [`minLimit`, `maxLimit`]. */
  initialLimit?: number;
  /** Default 20 (or `maxLimit` when lower). */
  minLimit?: number;
  /** Default 200. */
  maxLimit?: number;
  /** What a loss multiplies the limit by, in [0.5, 1). Default 0.9. */
  backoffRatio?: number;
  /** A round trip longer than this counts as a loss, in milliseconds. Default 5000. */
  timeoutMs?: number;
}

export const AIMD_FIELDS = {
  initialLimit: true,
  minLimit: true,
  maxLimit: true,
  backoffRatio: true,
  timeoutMs: true,
} as const satisfies Record<keyof AimdOptions, true>;

interface AimdParams {
  readonly minLimit: number;
  readonly maxLimit: number;
  readonly backoffRatio: number;
  readonly timeoutMs: number;
}

/**
 * Additive increase, multiplicative decrease, as Netflix concurrency-limits' `AIMDLimit`
 * (limit/AIMDLimit.java): a loss (a drop, or a round trip past `timeoutMs`) multiplies the limit
 * by `backoffRatio` (rounded down); a success while at least half the limit is in use adds 1.
 */
export function aimdStep(params: AimdParams, state: LimitState, sample: LimitSample): LimitState {
  let limit = state.limit;
  if (sample.dropped || sample.rttMs > params.timeoutMs) limit = Math.floor(limit * params.backoffRatio);
  else if (sample.inflight * 2 >= limit) limit += 1;
  return { limit: Math.min(params.maxLimit, Math.max(params.minLimit, limit)) };
}

export function createAimd(options: AimdOptions, path: string): LimitAlgorithm {
  const maxLimit = wholeAtLeast(options.maxLimit, 1, `${path}maxLimit`, 200);
  const params: AimdParams = {
    minLimit: wholeAtLeast(options.minLimit, 1, `${path}minLimit`, Math.min(20, maxLimit)),
    maxLimit,
    backoffRatio: numberWithin(options.backoffRatio, [0.5, 1], `${path}backoffRatio`, 0.9, true),
    timeoutMs: numberWithin(options.timeoutMs, [0, Number.MAX_SAFE_INTEGER], `${path}timeoutMs`, 5000),
  };
  const initial = wholeAtLeast(options.initialLimit, 1, `${path}initialLimit`, Math.max(params.minLimit, Math.min(20, params.maxLimit)));
  checkBounds(path, params.minLimit, initial, params.maxLimit);
  return {
    name: 'aimd',
    initial: { limit: initial },
    step: (state, sample) => aimdStep(params, state, sample),
    estimates: () => ({}),
  };
}
