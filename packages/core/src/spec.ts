import { ALGORITHMS } from './algorithms/registry.js';
import type { Duration } from './duration.js';
import { invalidSpec, TollgateError } from './errors.js';
import { limitLabel } from './limit-label.js';
import { closestName, refuseUnknownFields } from './option-fields.js';
import { expandShorthand, SPEC_FIELDS } from './shorthand.js';
import type { BoundLimit } from './stores/store.js';
import { unitOf } from './units.js';

interface Named {
  /**
   * Names the limit in headers, decisions and storage keys. Default: `default`; in a multi-limit
   * rule, the period its count or rate is given per (`{ qps: 100, burst: 10 }`: `1s`; `perDay`:
   * `1d`; a 15-minute window: `15m`; `concurrency` for a concurrency limit), unique within the rule.
   */
  name?: string;
  /**
   * What the limit counts, for costs given per unit (`cost: { tokens: 800 }`) and the `qu` of the
   * RateLimit-Policy header: `requests` (default), `tokens`, `content-bytes`... (see `LimitUnit`).
   */
  unit?: string;
}

/** SmoothBursty: `mode: 'reserve'` borrows future permits, admitting with `delayMs` up to `maxDelay`. */
interface ReserveMode {
  /** `'reject'` (default) denies a request short of permits; `'reserve'` borrows them and delays it. */
  mode?: 'reject' | 'reserve';
  /** Reserve mode: the longest `delayMs` a request may be given. Required with `mode: 'reserve'`. */
  maxDelay?: Duration;
}

export interface GcraSpec extends Named, ReserveMode {
  algorithm: 'gcra';
  rate: number;
  period?: Duration;
  burst?: number;
}
export interface TokenBucketSpec extends Named, ReserveMode {
  algorithm: 'token-bucket';
  capacity: number;
  refillPerSecond?: number;
  refillAmount?: number;
  refillInterval?: Duration;
}
/**
 * At most `limit` requests per `window`, counted from an identity's first request. `limit: 0`
 * admits nothing; `window: 'forever'` (or `Infinity`) never resets the count: a lifetime quota.
 */
export interface FixedWindowSpec extends Named {
  algorithm: 'fixed-window';
  limit: number;
  window: Duration | 'forever';
}
/** Guava SmoothWarmingUp: after idleness starts at `rate / coldFactor`, reaching `rate` over `warmup`. */
export interface WarmUpSpec extends Named {
  algorithm: 'warm-up';
  rate: number;
  period?: Duration;
  warmup: Duration;
  /** How much slower than `rate` a fully cold limiter admits. Default 3. */
  coldFactor?: number;
}
/**
 * A semaphore: at most `limit` requests in flight per key. Each admitted request holds a
 * lease (`Decision.lease`) until `release(lease)`, or `leaseTtl` at the latest.
 */
export interface ConcurrencySpec extends Named {
  algorithm: 'concurrency';
  limit: number;
  leaseTtl: Duration;
}
export interface SlidingWindowLogSpec extends Named {
  algorithm: 'sliding-window-log';
  limit: number;
  window: Duration;
}
export interface SlidingWindowCounterSpec extends Named {
  algorithm: 'sliding-window-counter';
  limit: number;
  window: Duration;
}
/** `mode: 'policing'` (default) denies what overflows `burst`; `'shaping'` delays requests up to `maxDelay`. */
export type LeakyBucketSpec = Named & { algorithm: 'leaky-bucket'; rate: number; period?: Duration } & (
    | { mode?: 'policing'; burst?: number }
    | { mode: 'shaping'; maxDelay: Duration }
  );
/** `{ qps: 10, burst: 5 }`: GCRA at 10 per second, 5 at once. */
export interface QpsShorthand extends Named, ReserveMode {
  qps: number;
  burst?: number;
}
/** `{ perMinute: 300 }`: GCRA at 300 per minute; burst defaults to the same number. */
export type PerPeriodShorthand = Named &
  ReserveMode & { burst?: number } & ({ perSecond: number } | { perMinute: number } | { perHour: number } | { perDay: number });
/** `{ rate: 100, period: '1m' }`: GCRA. */
export interface RateShorthand extends Named, ReserveMode {
  rate: number;
  period: Duration;
  burst?: number;
}

export type LimitSpec =
  | GcraSpec
  | TokenBucketSpec
  | FixedWindowSpec
  | WarmUpSpec
  | ConcurrencySpec
  | SlidingWindowLogSpec
  | SlidingWindowCounterSpec
  | LeakyBucketSpec
  | QpsShorthand
  | PerPeriodShorthand
  | RateShorthand;

const NAME_PATTERN = /^[A-Za-z0-9_.-]{1,64}$/;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function bindLimit(raw: unknown, path: string, defaultName: (label: string) => string): BoundLimit {
  if (!isRecord(raw)) throw invalidSpec(path, 'must be an object describing a limit', raw);
  refuseUnknownFields(raw, SPEC_FIELDS, `${path}.`, 'ERR_TOLLGATE_INVALID_SPEC');
  const { spec, at } = expandShorthand(raw, path);
  const algorithmName = spec.algorithm;
  const algorithm = typeof algorithmName === 'string' ? ALGORITHMS.get(algorithmName) : undefined;
  if (algorithm === undefined) {
    throw invalidSpec(`${path}.algorithm`, `must be one of ${[...ALGORITHMS.keys()].join(', ')}`, algorithmName);
  }
  const allowed = Object.keys(algorithm.fields);
  for (const field of Object.keys(spec)) {
    if (field !== 'algorithm' && field !== 'name' && field !== 'unit' && !allowed.includes(field) && spec[field] !== undefined) {
      const closest = closestName(field, allowed);
      const hint = closest === undefined ? '' : `: did you mean ${closest}?`;
      throw invalidSpec(
        `${path}.${field}`,
        `is not an option of ${algorithm.name}${hint} (options: ${allowed.join(', ')}, name, unit)`,
        spec[field],
      );
    }
  }
  if (spec.name !== undefined && (typeof spec.name !== 'string' || !NAME_PATTERN.test(spec.name))) {
    throw invalidSpec(`${path}.name`, 'must be 1-64 characters of A-Z a-z 0-9 _ . -', spec.name);
  }
  const unit = unitOf(spec.unit, `${path}.unit`);
  const params = algorithm.parse(spec, at);
  const unnamed = { algorithm, params, unit, luaArgs: [algorithm.name, ...algorithm.luaArgs(params).map(String)] };
  return { name: (spec.name as string | undefined) ?? defaultName(limitLabel(algorithm, spec)), ...unnamed };
}

/** `label`, or `label-2`, `label-3`... the first one not yet taken; taken from now on. */
function uniqueName(label: string, taken: Set<unknown>): string {
  let name = label;
  for (let n = 2; taken.has(name); n++) name = `${label}-${n}`;
  taken.add(name);
  return name;
}

/** A rule: one limit spec, or `{ limits: [...] }` checked all-or-nothing. */
export type RuleSpec = LimitSpec | { limits: readonly LimitSpec[] };

/**
 * Validates a rule and resolves each of its limits; errors name the offending field: `spec`,
 * `limits[1].burst`, or under `path` when given (`rules[0].limit.burst`, `rules[0].limits[1].burst`).
 * A single limit without a `name` is called `singleName` (a rule set's: the rule's name).
 */
export function bindRule(rule: unknown, path?: string, singleName = 'default'): BoundLimit[] {
  const specPath = path ?? 'spec';
  const limitsPath = path === undefined ? 'limits' : `${path}.limits`;
  if (!isRecord(rule)) throw invalidSpec(specPath, 'must be an object', rule);
  if (rule.limits === undefined) return [bindLimit(rule, specPath, () => singleName)];
  if (!Array.isArray(rule.limits) || rule.limits.length === 0) {
    throw invalidSpec(limitsPath, 'must be a non-empty array of limit specs', rule.limits);
  }
  const taken = new Set(rule.limits.map((raw) => (isRecord(raw) ? raw.name : undefined)).filter((name) => typeof name === 'string'));
  const bound = rule.limits.map((raw, i) => bindLimit(raw, `${limitsPath}[${i}]`, (label) => uniqueName(label, taken)));
  const seen = new Set<string>();
  for (const [i, limit] of bound.entries()) {
    if (seen.has(limit.name)) {
      const field = `${limitsPath}[${i}].name`;
      throw new TollgateError('ERR_TOLLGATE_INVALID_SPEC', `${field} "${limit.name}" is used twice`, field);
    }
    seen.add(limit.name);
  }
  return bound;
}
