/**
 * An exponential moving average that starts as a plain mean over its first `warmup` samples:
 * Netflix concurrency-limits' `ExpAvgMeasurement` (limit/measurement/ExpAvgMeasurement.java),
 * whose smoothing factor for a window of n samples is 2 / (n + 1).
 */
export interface ExpAvg {
  readonly value: number;
  readonly sum: number;
  readonly count: number;
}

export const EMPTY_EXP_AVG: ExpAvg = { value: 0, sum: 0, count: 0 };

export function addToExpAvg(average: ExpAvg, sample: number, window: number, warmup: number): ExpAvg {
  if (average.count < warmup) {
    const sum = average.sum + sample;
    const count = average.count + 1;
    return { value: sum / count, sum, count };
  }
  const factor = 2 / (window + 1);
  return { ...average, value: average.value * (1 - factor) + sample * factor };
}
