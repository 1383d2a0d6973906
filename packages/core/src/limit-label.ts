import { isForever } from './algorithms/fields.js';
import type { AnyAlgorithm } from './algorithms/types.js';
import { parseDuration } from './duration.js';

/** The spec fields giving the span a limit's count or rate is measured over, the first one present winning. */
const PERIOD_FIELDS = ['period', 'window', 'refillInterval'] as const;
/** What a rate without a period is given per (`qps`, `refillPerSecond`, `rate` alone). */
const DEFAULT_PERIOD_MS = 1000;

const UNITS: readonly [string, number][] = [
  ['d', 86_400_000],
  ['h', 3_600_000],
  ['m', 60_000],
  ['s', 1000],
];

/**
 * What an unnamed limit of a multi-limit rule is called in headers, decisions and storage keys:
 * the period its count or rate is given per, as written, in the largest whole unit (`{ qps: 100,
 * burst: 10 }`: `1s`; `{ perDay: n }`: `1d`; a `15m` window: `15m`; `{ rate, period: 1500 }`:
 * `1500ms`). A burst changes no name, so values chosen per call keep it. A concurrency limit,
 * which has no period, is `concurrency`; a count that never resets, `forever`.
 * `spec` is the full `{ algorithm, ... }` form, already validated.
 */
export function limitLabel(algorithm: AnyAlgorithm, spec: Readonly<Record<string, unknown>>): string {
  if (algorithm.release !== undefined) return algorithm.name;
  const written = PERIOD_FIELDS.map((field) => spec[field]).find((value) => value !== undefined);
  if (isForever(written)) return 'forever';
  const ms = written === undefined ? DEFAULT_PERIOD_MS : parseDuration(written, 'period');
  const unit = UNITS.find(([, size]) => ms % size === 0);
  return unit === undefined ? `${ms}ms` : `${ms / unit[1]}${unit[0]}`;
}
