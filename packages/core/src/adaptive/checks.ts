import { invalidOption } from '../errors.js';
import type { OfLimit } from './limits/sample.js';

/** `value` as a whole number of at least `min`, or `fallback` when absent; else an error naming `field`. */
export function wholeAtLeast(value: unknown, min: number, field: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min)
    throw invalidOption(field, `must be a whole number of at least ${min}`, value);
  return value;
}

/** `value` as a finite number in [min, max] (`max` excluded when `maxOpen`), or `fallback` when absent. */
export function numberWithin(
  value: unknown,
  [min, max]: readonly [number, number],
  field: string,
  fallback: number,
  maxOpen = false,
): number {
  if (value === undefined) return fallback;
  const inRange = typeof value === 'number' && Number.isFinite(value) && value >= min && (maxOpen ? value < max : value <= max);
  if (!inRange) throw invalidOption(field, `must be a number from ${min} to ${max}${maxOpen ? ' (excluded)' : ''}`, value);
  return value;
}

/** A number or a function of the limit (`alpha`, `queueSize`...), or `fallback` when absent. */
export function ofLimit(value: unknown, field: string, fallback: OfLimit): OfLimit {
  if (value === undefined) return fallback;
  if (typeof value === 'function') return value as (limit: number) => number;
  if (typeof value === 'number' && Number.isFinite(value) && value >= 0) return value;
  throw invalidOption(field, 'must be a number of at least 0 or a function of the limit', value);
}

/** `value` as a boolean, or `fallback` when absent. */
export function booleanOr(value: unknown, field: string, fallback: boolean): boolean {
  if (value === undefined) return fallback;
  if (typeof value !== 'boolean') throw invalidOption(field, 'must be true or false', value);
  return value;
}

/** `value` as a function, or `fallback` when absent. */
export function functionOr<F extends (...args: never[]) => unknown>(value: unknown, field: string, fallback: F): F {
  if (value === undefined) return fallback;
  if (typeof value !== 'function') throw invalidOption(field, 'must be a function', value);
  return value as F;
}

/** Refuses bounds that leave no room: `initialLimit` outside [`minLimit`, `maxLimit`]. */
export function checkBounds(path: string, min: number, initial: number, max: number): void {
  if (min > max) throw invalidOption(`${path}minLimit`, `must not exceed maxLimit (${max})`, min);
  if (initial < min || initial > max)
    throw invalidOption(`${path}initialLimit`, `must be from minLimit (${min}) to maxLimit (${max})`, initial);
}
