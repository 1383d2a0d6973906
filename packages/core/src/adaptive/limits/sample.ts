/** One finished request as a limit algorithm sees it. */
export interface LimitSample {
  /** How long the request held its slot, in milliseconds. */
  readonly rttMs: number;
  /** Requests in flight when this one took its slot (itself included). */
  readonly inflight: number;
  /** True when the request failed in a way that signals overload: dropped, timed out, a 5xx. */
  readonly dropped: boolean;
}

/** What every algorithm's state holds: the whole concurrency limit the limiter enforces now. */
export interface LimitState {
  readonly limit: number;
  /**
   * The limit the partitions' guaranteed shares are taken of, when not `limit`: Vegas halves the
   * limit to probe its no-load round trip, which must stop the borrowing, not the guarantees.
   */
  readonly sharedLimit?: number | undefined;
}

/** An algorithm bound to its parameters: a pure step from one state to the next. */
export interface LimitAlgorithm<S extends LimitState = LimitState> {
  readonly name: AdaptiveAlgorithmName;
  readonly initial: S;
  step(state: S, sample: LimitSample): S;
  /** The latency estimates the state holds (absent while none is known), for events and metrics. */
  estimates(state: S): LimitEstimates;
}

export interface LimitEstimates {
  /** Vegas: the round trip without queueing (the smallest seen since the last probe). */
  readonly noLoadRttMs?: number;
  /** Gradient2: the long-window exponential average of round trips. */
  readonly longRttMs?: number;
}

export type AdaptiveAlgorithmName = 'aimd' | 'vegas' | 'gradient2' | 'fixed';

/** A parameter given as a number or as a function of the current (whole) limit. */
export type OfLimit = number | ((limit: number) => number);

export function applyOfLimit(value: OfLimit, limit: number): number {
  return typeof value === 'number' ? value : value(limit);
}
