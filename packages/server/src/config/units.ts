/** The units of `RateLimitResponse.RateLimit.Unit` that name a length of time. */
export type RateLimitUnit = 'SECOND' | 'MINUTE' | 'HOUR' | 'DAY' | 'WEEK' | 'MONTH' | 'YEAR';

/** Each unit in milliseconds; a month is 30 days and a year 365, as envoyproxy/ratelimit counts them. */
export const UNIT_MS: Readonly<Record<RateLimitUnit, number>> = {
  SECOND: 1000,
  MINUTE: 60_000,
  HOUR: 3_600_000,
  DAY: 86_400_000,
  WEEK: 7 * 86_400_000,
  MONTH: 30 * 86_400_000,
  YEAR: 365 * 86_400_000,
};

const UNITS = Object.keys(UNIT_MS) as RateLimitUnit[];

/** A unit as a config writes it, in any case (`minute`, `MINUTE`); undefined when it names none. */
export function parseUnit(text: unknown): RateLimitUnit | undefined {
  if (typeof text !== 'string') return undefined;
  const upper = text.toUpperCase();
  return UNITS.find((unit) => unit === upper);
}

/**
 * A policy of `quota` per `windowMs` as a RateLimit message: per the window's own unit when it
 * is one, else per the shortest unit at least as long, scaled down to whole requests.
 */
export function perUnit(quota: number, windowMs: number): { requests_per_unit: number; unit: RateLimitUnit } {
  const unit = UNITS.find((candidate) => UNIT_MS[candidate] >= windowMs) ?? 'YEAR';
  return { requests_per_unit: Math.floor((quota * UNIT_MS[unit]) / Math.max(1, windowMs)), unit };
}
