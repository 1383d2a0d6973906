import { invalidSpec } from './errors.js';

/** Milliseconds as a number, or a string such as '500ms', '1.5s', '1m', '1h', '1d'. */
export type Duration = number | `${number}${DurationUnit}` | `${number} ${DurationUnit}`;
export type DurationUnit = 'ms' | 's' | 'm' | 'h' | 'd';

const UNIT_MS: Record<DurationUnit, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const DURATION_PATTERN = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)$/;

/** Parses a duration into whole milliseconds (> 0); throws an error naming `field` otherwise. */
export function parseDuration(value: unknown, field: string): number {
  let ms: number;
  if (typeof value === 'number') {
    ms = value;
  } else if (typeof value === 'string') {
    const match = DURATION_PATTERN.exec(value.trim());
    if (!match) throw invalidSpec(field, "must be a duration such as 500, '500ms', '1s', '1m', '1h' or '1d'", value);
    ms = Number(match[1]) * UNIT_MS[match[2] as DurationUnit];
  } else {
    throw invalidSpec(field, 'must be a duration in milliseconds or a string such as "1s"', value);
  }
  if (!Number.isFinite(ms) || ms < 1 || !Number.isInteger(ms)) {
    throw invalidSpec(field, 'must be a whole number of milliseconds >= 1', value);
  }
  return ms;
}
