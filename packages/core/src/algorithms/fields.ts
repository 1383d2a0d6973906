import { parseDuration } from '../duration.js';
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

/**
 * `mode: 'reserve'` with `maxDelay` (SmoothBursty): the most a request may wait for borrowed
 * permits, in ms. 0 in the default `mode: 'reject'`, where nothing is borrowed.
 */
export function reserveDelayMs(spec: Readonly<Record<string, unknown>>, path: string): number {
  const mode = spec.mode ?? 'reject';
  if (mode !== 'reject' && mode !== 'reserve') throw invalidSpec(`${path}.mode`, "must be 'reject' or 'reserve'", mode);
  if (mode === 'reject') {
    if (spec.maxDelay !== undefined) throw invalidSpec(`${path}.maxDelay`, "is only used with mode: 'reserve'", spec.maxDelay);
    return 0;
  }
  if (spec.maxDelay === undefined) throw invalidSpec(`${path}.maxDelay`, "is required with mode: 'reserve'", undefined);
  return parseDuration(spec.maxDelay, `${path}.maxDelay`);
}

/** `limit` units per `window`: the params of the window algorithms. */
export interface LimitPerWindow {
  limit: number;
  windowMs: number;
}

export function limitPerWindow(spec: Readonly<Record<string, unknown>>, path: string): LimitPerWindow {
  return { limit: positiveInteger(spec, 'limit', path), windowMs: parseDuration(spec.window, `${path}.window`) };
}

/** What every window algorithm hands to its Lua step and advertises in headers. */
export const LIMIT_PER_WINDOW = {
  luaArgs: (p: LimitPerWindow): readonly number[] => [p.limit, p.windowMs],
  limit: (p: LimitPerWindow): number => p.limit,
  policy: (p: LimitPerWindow) => ({ quota: p.limit, windowMs: p.windowMs }),
};
