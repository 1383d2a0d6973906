import { createHash } from 'node:crypto';
import {
  ALGORITHMS,
  bindRule,
  type Clock,
  createLimiter,
  type Limiter,
  type LimiterListeners,
  type LimitSpec,
  policyHeader,
  type RuleSpec,
  type Store,
  type StoreFailureMode,
} from '@tollgate/core';
import { OPTION_FIELDS, RATE_LIMIT_FIELDS, REPLACES_FIELDS } from './document.js';
import { checkFields, configError, type Fields, isRecord, prefixed } from './errors.js';
import { parseUnit, type RateLimitUnit, UNIT_MS } from './units.js';

/** What a domain's limiters are built on. */
export interface CompileContext {
  store: Store;
  clock: Clock | undefined;
  /** Listeners given to every limiter (the metrics). */
  events: LimiterListeners | undefined;
  /** Start of every storage key. */
  prefix: string;
}

/** A `rate_limit` as configured: a RateLimit message when written as envoyproxy/ratelimit writes it. */
export interface ConfiguredLimit {
  name: string;
  requests_per_unit: number;
  unit: RateLimitUnit;
}

/** One `rate_limit` block, compiled. */
export interface CompiledLimit {
  /** `domain.key_value.subkey`: the descriptor's path, as envoyproxy/ratelimit names it in its stats. */
  readonly fullKey: string;
  /** The `name` others may `replace`. */
  readonly name: string | undefined;
  readonly replaces: readonly string[];
  /** `unlimited`: always OK, the store is not asked; `blocked`: `requests_per_unit: 0`, always over the limit. */
  readonly kind: 'limited' | 'unlimited' | 'blocked';
  /** The limiter of a `limited` limit. */
  readonly limiter: Limiter | undefined;
  /** What `current_limit` says, when the config wrote `unit` and `requests_per_unit`. */
  readonly configured: ConfiguredLimit | undefined;
  /** The `RateLimit-Policy` field of the limiter ('' without one). */
  readonly policy: string;
  /** `shadow_mode`: the limiter decides and reports, but answers allowed. */
  readonly shadow: boolean;
  readonly quota: boolean;
  readonly detailedMetric: boolean;
}

/** The descriptor fields a `rate_limit` is compiled with. */
export interface LimitOwner {
  fullKey: string;
  path: string;
  options: Fields;
  shadow: boolean;
  quota: boolean;
  detailedMetric: boolean;
}

const NAME_PATTERN = /^[A-Za-z0-9_.-]{1,64}$/;
/** What `algorithm` may be next to `unit` and `requests_per_unit`, and how those two fill its spec. */
const WINDOW_ALGORITHMS = new Set(['fixed-window', 'sliding-window-log', 'sliding-window-counter']);
const BURST_ALGORITHMS = new Set(['gcra', 'token-bucket', 'leaky-bucket']);

export function compileRateLimit(raw: unknown, owner: LimitOwner, context: CompileContext): CompiledLimit {
  const path = `${owner.path}.rate_limit`;
  if (!isRecord(raw)) throw configError(path, 'must be an object', raw);
  checkFields(raw, RATE_LIMIT_FIELDS, `${path}.`);
  const name = optionalName(raw.name, `${path}.name`);
  const replaces = replacedNames(raw.replaces, `${path}.replaces`, name);
  const common = { fullKey: owner.fullKey, name, replaces, shadow: owner.shadow, quota: owner.quota, detailedMetric: owner.detailedMetric };
  if (raw.unlimited !== undefined && typeof raw.unlimited !== 'boolean')
    throw configError(`${path}.unlimited`, 'must be a boolean', raw.unlimited);
  if (raw.unlimited === true) {
    for (const field of ['unit', 'requests_per_unit', 'algorithm', 'burst', 'limit', 'limits'] as const) {
      if (field === 'unit' ? parseUnit(raw.unit) !== undefined : raw[field] !== undefined) {
        throw configError(`${path}.${field}`, 'should not specify rate limit unit when unlimited', raw[field]);
      }
    }
    return { ...common, kind: 'unlimited', limiter: undefined, configured: undefined, policy: '' };
  }
  const headerName = headerNameOf(name, owner.fullKey);
  const { spec, configured } = ruleSpec(raw, path, headerName);
  if (configured?.requests_per_unit === 0) return { ...common, kind: 'blocked', limiter: undefined, configured, policy: '' };
  const limiter = buildLimiter(spec!, path, owner, context);
  return { ...common, kind: 'limited', limiter, configured, policy: policyHeader(limiter.limits) };
}

/** The Tollgate rule a `rate_limit` stands for, and the RateLimit message it was written as. */
function ruleSpec(raw: Fields, path: string, headerName: string): { spec: RuleSpec | undefined; configured: ConfiguredLimit | undefined } {
  const given = (['limit', 'limits'] as const).filter((field) => raw[field] !== undefined);
  if (given.length > 0) {
    for (const field of ['unit', 'requests_per_unit', 'algorithm', 'burst'] as const) {
      if (raw[field] !== undefined) throw configError(`${path}.${field}`, `cannot be combined with ${given[0]}`, raw[field]);
    }
    if (given.length === 2) throw configError(`${path}.limits`, 'cannot be combined with limit', raw.limits);
    refuseHolding(raw, path);
    if (raw.limit !== undefined) return { spec: namedSpec(raw.limit, headerName), configured: undefined };
    return { spec: { limits: raw.limits as LimitSpec[] }, configured: undefined };
  }
  const unit = parseUnit(raw.unit);
  if (unit === undefined) throw configError(`${path}.unit`, `invalid rate limit unit '${String(raw.unit ?? '')}'`, raw.unit);
  const count = raw.requests_per_unit;
  if (typeof count !== 'number' || !Number.isSafeInteger(count) || count < 0 || count > 0xffff_ffff) {
    throw configError(`${path}.requests_per_unit`, 'must be a whole number from 0 to 4294967295', count);
  }
  const configured = { name: headerName, requests_per_unit: count, unit };
  if (count === 0) return { spec: undefined, configured };
  return { spec: { name: headerName, ...algorithmSpec(raw, path, count, UNIT_MS[unit]) }, configured };
}

/**
 * Refuses the modes that admit a request to be held before it goes on (leaky-bucket shaping,
 * reserve): a gateway asking the service passes or rejects, it cannot hold.
 */
function refuseHolding(raw: Fields, path: string): void {
  const specs =
    raw.limit !== undefined
      ? [[`${path}.limit`, raw.limit]]
      : Array.isArray(raw.limits)
        ? raw.limits.map((spec, i) => [`${path}.limits[${i}]`, spec])
        : [];
  for (const [at, spec] of specs as [string, unknown][]) {
    const mode = isRecord(spec) ? spec.mode : undefined;
    if (mode === 'shaping' || mode === 'reserve') {
      throw configError(
        `${at}.mode`,
        'cannot be used here: it admits requests to be held back, which a gateway asking this service cannot do',
        mode,
      );
    }
  }
}

/** `requests_per_unit` per `unit` in the chosen algorithm's own terms. */
function algorithmSpec(raw: Fields, path: string, count: number, unitMs: number): LimitSpec {
  const algorithm = raw.algorithm ?? 'fixed-window';
  if (typeof algorithm !== 'string' || !ALGORITHMS.has(algorithm)) {
    throw configError(`${path}.algorithm`, `must be one of ${[...ALGORITHMS.keys()].join(', ')}`, algorithm);
  }
  const burst = raw.burst;
  if (WINDOW_ALGORITHMS.has(algorithm)) {
    if (burst !== undefined) throw configError(`${path}.burst`, `applies to ${[...BURST_ALGORITHMS].join(', ')}, not ${algorithm}`, burst);
    return { algorithm, limit: count, window: unitMs } as LimitSpec;
  }
  if (algorithm === 'token-bucket')
    return { algorithm, capacity: burst ?? count, refillAmount: count, refillInterval: unitMs } as LimitSpec;
  if (BURST_ALGORITHMS.has(algorithm))
    return { algorithm, rate: count, period: unitMs, ...(burst === undefined ? {} : { burst }) } as LimitSpec;
  throw configError(
    `${path}.algorithm`,
    `${algorithm} takes parameters of its own: give it as limit: { algorithm: ${algorithm}, ... }`,
    algorithm,
  );
}

/** A single `limit` without a name is named after its descriptor in the rate-limit fields. */
function namedSpec(spec: unknown, headerName: string): RuleSpec {
  if (isRecord(spec) && spec.name === undefined) return { ...spec, name: headerName } as RuleSpec;
  return spec as RuleSpec;
}

function buildLimiter(spec: RuleSpec, path: string, owner: LimitOwner, context: CompileContext): Limiter {
  const specPath = spec !== null && typeof spec === 'object' && 'limits' in spec ? path : `${path}.limit`;
  try {
    // Validates with the field's path in the errors; createLimiter then builds from the same spec.
    bindRule(spec, specPath);
  } catch (error) {
    throw prefixed(error, '');
  }
  const options = limiterOptions(owner.options, owner.path);
  try {
    return createLimiter({
      ...spec,
      ...options,
      shadow: owner.shadow,
      store: context.store,
      prefix: `${context.prefix}:${digest(owner.fullKey)}`,
      rule: owner.fullKey,
      ...(context.clock ? { clock: context.clock } : {}),
      ...(context.events ? { events: context.events } : {}),
    } as Parameters<typeof createLimiter>[0]);
  } catch (error) {
    throw prefixed(error, `${owner.path}.`);
  }
}

/** The descriptor's Tollgate options as limiter options: `onStoreError: { share }` is a fallback share. */
export function limiterOptions(options: Fields, path: string): Fields {
  const { onStoreError, ...rest } = options;
  if (onStoreError === undefined || onStoreError === 'open' || onStoreError === 'closed') {
    return onStoreError === undefined ? rest : { ...rest, onStoreError };
  }
  const share = isRecord(onStoreError) ? onStoreError.share : undefined;
  if (typeof share !== 'number' || Object.keys(onStoreError as object).length !== 1) {
    throw configError(`${path}.onStoreError`, 'must be open, closed or { share: <fraction of the limit> }', onStoreError);
  }
  return { ...rest, onStoreError: { fallback: { share } } satisfies StoreFailureMode };
}

/** Options every descriptor starts from, checked: no unknown field, a failure mode that exists. */
export function checkedDefaults(defaults: unknown, path: string): Fields {
  if (defaults === undefined) return {};
  if (!isRecord(defaults)) throw configError(path, 'must be an object', defaults);
  checkFields(defaults, OPTION_FIELDS, `${path}.`);
  limiterOptions(defaults, path);
  return defaults;
}

export function pickOptions(fields: Fields): Fields {
  return Object.fromEntries(Object.keys(OPTION_FIELDS).flatMap((name) => (fields[name] === undefined ? [] : [[name, fields[name]]])));
}

function optionalName(value: unknown, path: string): string | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string') throw configError(path, 'must be a string', value);
  return value;
}

function replacedNames(value: unknown, path: string, own: string | undefined): string[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw configError(path, 'must be a list of { name }', value);
  return value.map((entry, i) => {
    if (!isRecord(entry)) throw configError(`${path}[${i}]`, 'must be { name }', entry);
    checkFields(entry, REPLACES_FIELDS, `${path}[${i}].`);
    if (typeof entry.name !== 'string' || entry.name === '')
      throw configError(`${path}[${i}].name`, 'should not have an empty replaces entry', entry.name);
    if (entry.name === own) throw configError(`${path}[${i}].name`, 'replaces should not contain name of same descriptor', entry.name);
    return entry.name;
  });
}

/** The name a limit goes by in `RateLimit-Policy`: its `name` when a header can carry it, else its descriptor path. */
function headerNameOf(name: string | undefined, fullKey: string): string {
  if (name !== undefined && NAME_PATTERN.test(name)) return name;
  const path = fullKey.slice(fullKey.indexOf('.') + 1).replace(/[^A-Za-z0-9_.-]/g, '_');
  return path.length <= 64 ? path : path.slice(0, 64);
}

function digest(text: string): string {
  return createHash('sha256').update(text).digest('base64url').slice(0, 16);
}
