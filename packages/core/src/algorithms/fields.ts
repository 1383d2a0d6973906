import { parseDuration } from '../duration.js';
import { invalidSpec } from '../errors.js';
import { type FieldName, type FieldPath, oneOf, type SpecFields, type SpecValues } from './spec-fields.js';
import type { Policy } from './types.js';

/**
 * The longest time span any limit may describe (a window, an emission interval × burst, a
 * wait): 50 years. Every state then stays a whole number below 2^53 microseconds past any
 * epoch time this century, and every TTL the Lua steps send to Redis is a plain integer.
 */
export const MAX_SPAN_MS = 50 * 365 * 86_400_000;

/** A duration (see `parseDuration`) of at most MAX_SPAN_MS; `fallback` when the field is absent. */
export function span<K extends string>(spec: SpecValues<K>, key: NoInfer<K>, at: FieldPath<K>, fallback?: number): number {
  const ms = parseDuration(spec[key] ?? fallback, at(key));
  if (ms > MAX_SPAN_MS) throw invalidSpec(at(key), 'must be at most 50 years', spec[key]);
  return ms;
}

/**
 * The interval between units at `rate` per `periodMs`, in whole microseconds: at least 1 µs,
 * and `units` of them (the burst) within MAX_SPAN_MS. Errors name `rateField` (too high or too low).
 */
export function emissionIntervalUs(rate: number, periodMs: number, rateField: string): number {
  const intervalUs = Math.round((periodMs * 1000) / rate);
  if (intervalUs < 1) throw invalidSpec(rateField, 'is too high: one request per microsecond at most', rate);
  if (!(intervalUs <= MAX_SPAN_MS * 1000)) throw invalidSpec(rateField, 'is too low: one request per 50 years at least', rate);
  return intervalUs;
}

/** Refuses a burst whose emission intervals add up to more than MAX_SPAN_MS. */
export function burstWithinSpan(burst: number, intervalUs: number, field: string): number {
  if (burst * intervalUs > MAX_SPAN_MS * 1000) throw invalidSpec(field, 'is too high: burst × interval must be at most 50 years', burst);
  return burst;
}

/** A finite number > 0. */
export function positiveNumber<K extends string>(spec: SpecValues<K>, key: NoInfer<K>, at: FieldPath<K>): number {
  const value = spec[key];
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    throw invalidSpec(at(key), 'must be a finite number > 0', value);
  }
  return value;
}

/** A whole number >= 0 (a count of 0 admits nothing); `fallback` when the field is absent and a fallback is given. */
export function wholeNumber<K extends string>(spec: SpecValues<K>, key: NoInfer<K>, at: FieldPath<K>, fallback?: number): number {
  const value = spec[key] ?? fallback;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    throw invalidSpec(at(key), 'must be a whole number >= 0', spec[key]);
  }
  return value;
}

/** A whole number >= 1; `fallback` when the field is absent and a fallback is given. */
export function positiveInteger<K extends string>(spec: SpecValues<K>, key: NoInfer<K>, at: FieldPath<K>, fallback?: number): number {
  const value = spec[key] ?? fallback;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) {
    throw invalidSpec(at(key), 'must be a whole number >= 1', spec[key]);
  }
  return value;
}

/** One of the words `field` declares; its first when the field is absent. */
export function oneOfValues<K extends string, const V extends readonly [string, ...string[]]>(
  spec: SpecValues<K>,
  key: NoInfer<K>,
  at: FieldPath<K>,
  field: { readonly oneOf: V },
): V[number] {
  const value = spec[key] ?? field.oneOf[0];
  if (!field.oneOf.includes(value as string)) {
    throw invalidSpec(at(key), `must be ${field.oneOf.map((word) => `'${word}'`).join(' or ')}`, value);
  }
  return value as V[number];
}

/** SmoothBursty's fields: `mode: 'reserve'` lends future permits, a wait of up to `maxDelay`. */
export const RESERVE_FIELDS = { mode: oneOf('reject', 'reserve'), maxDelay: 'duration' } as const satisfies SpecFields;

/**
 * `mode: 'reserve'` with `maxDelay` (SmoothBursty): the most a request may wait for borrowed
 * permits, in ms. 0 in the default `mode: 'reject'`, where nothing is borrowed.
 */
export function reserveDelayMs(spec: SpecValues<ReserveField>, at: FieldPath<ReserveField>): number {
  const mode = oneOfValues(spec, 'mode', at, RESERVE_FIELDS.mode);
  if (mode === 'reject') {
    if (spec.maxDelay !== undefined) throw invalidSpec(at('maxDelay'), "is only used with mode: 'reserve'", spec.maxDelay);
    return 0;
  }
  if (spec.maxDelay === undefined) throw invalidSpec(at('maxDelay'), "is required with mode: 'reserve'", undefined);
  return span(spec, 'maxDelay', at);
}

type ReserveField = FieldName<typeof RESERVE_FIELDS>;

/** `limit` units per `window`: the params of the window algorithms. */
export interface LimitPerWindow {
  /** 0 admits nothing. */
  limit: number;
  /** Infinity: a count that never resets (`window: 'forever'`, fixed window only). */
  windowMs: number;
}

/** What `window` is for a count that never resets (fixed window): `'forever'`, or `Infinity`. */
export const FOREVER = 'forever';

export function isForever(window: unknown): boolean {
  return window === FOREVER || window === Number.POSITIVE_INFINITY;
}

/** The fields of the window algorithms: at most `limit` requests per `window`. */
export const LIMIT_PER_WINDOW_FIELDS = { limit: 'count', window: 'duration' } as const satisfies SpecFields;

type LimitPerWindowField = FieldName<typeof LIMIT_PER_WINDOW_FIELDS>;

/** Below this, a window given as a bare number was most likely meant in seconds (as rate-limiter-flexible's `duration`). */
const SECONDS_LIKE_WINDOW_MS = 100;

/** `limit` (>= 0) per `window`; `'forever'` is refused with a pointer to the fixed window. */
export function limitPerWindow(spec: SpecValues<LimitPerWindowField>, at: FieldPath<LimitPerWindowField>): LimitPerWindow {
  const { window } = spec;
  if (isForever(window)) {
    throw invalidSpec(
      at('window'),
      "cannot be 'forever' here: a count that never resets is { algorithm: 'fixed-window', window: 'forever' }",
      window,
    );
  }
  if (typeof window === 'number' && window > 0 && window < SECONDS_LIKE_WINDOW_MS) {
    throw invalidSpec(
      at('window'),
      `is in milliseconds: for ${window} seconds write '${window}s' or ${window * 1000} (rate-limiter-flexible's duration is in seconds); a window this short is written with its unit, e.g. '${window}ms'`,
      window,
    );
  }
  return { limit: wholeNumber(spec, 'limit', at), windowMs: span(spec, 'window', at) };
}

/** As `limitPerWindow`, and `window: 'forever'` (or Infinity) for a count that never resets. */
export function limitPerWindowOrForever(spec: SpecValues<LimitPerWindowField>, at: FieldPath<LimitPerWindowField>): LimitPerWindow {
  if (isForever(spec.window)) return { limit: wholeNumber(spec, 'limit', at), windowMs: Number.POSITIVE_INFINITY };
  if (spec.window === 0) throw invalidSpec(at('window'), "must be >= 1 ms; a count that never resets is window: 'forever'", 0);
  return limitPerWindow(spec, at);
}

/** What every window algorithm hands to its Lua step and advertises in headers. */
export const LIMIT_PER_WINDOW = {
  luaArgs: (p: LimitPerWindow): readonly number[] => [p.limit, p.windowMs],
  limit: (p: LimitPerWindow): number => p.limit,
  policy: (p: LimitPerWindow): Policy => ({ quota: p.limit, windowMs: p.windowMs }),
};
