import { invalidSpec } from '../errors.js';

/** A finite number > 0. */
export function positiveNumber(spec: Readonly<Record<string, unknown>>, key: string, path: string): number {
  const value = spec[key];
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    throw invalidSpec(`${path}.${key}`, 'must be a finite number > 0', value);
  }
  return value;
}

/** A whole number >= 1; `fallback` when the field is absent and a fallback is given. */
export function positiveInteger(spec: Readonly<Record<string, unknown>>, key: string, path: string, fallback?: number): number {
  const value = spec[key] ?? fallback;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) {
    throw invalidSpec(`${path}.${key}`, 'must be a whole number >= 1', spec[key]);
  }
  return value;
}
