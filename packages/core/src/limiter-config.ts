import { blockLimit } from './block/block-limit.js';
import { parseDuration } from './duration.js';
import { describeValue, invalidOption, TollgateError } from './errors.js';
import { LimiterEvents } from './events.js';
import { assertPrefix } from './keys.js';
import type { CreateLimiterOptions, FallbackShare, Limiter, LimiterOptions, StoreFailureMode } from './limiter-types.js';
import type { Logger } from './logger.js';
import { type FieldSet, refuseUnknownFields } from './option-fields.js';
import { refusePeerOptions } from './peer-options.js';
import { Breakers } from './resilience/breaker.js';
import { DenyCache } from './resilience/deny-cache.js';
import { shareOfRule } from './resilience/share.js';
import { SPEC_FIELDS } from './shorthand.js';
import { bindRule, type RuleSpec } from './spec.js';
import { MemoryStore } from './stores/memory-store.js';
import type { BoundLimit, Clock, Store } from './stores/store.js';

/** The options of `createLimiter` that are not part of the rule; typecheck fails on one missing. */
export const LIMITER_FIELDS = {
  store: true,
  clock: true,
  prefix: true,
  rule: true,
  timeout: true,
  onStoreError: true,
  breaker: true,
  denyCache: true,
  shadow: true,
  blockDuration: true,
  events: true,
  logger: true,
} as const satisfies Record<keyof LimiterOptions, true>;

/** Every field `createLimiter` takes: a limiter option, `limits`, or a field of some limit spec. */
const CREATE_LIMITER_FIELDS: FieldSet = { ...LIMITER_FIELDS, ...SPEC_FIELDS, limits: true };

/** The fields of `onStoreError`'s object form and of the fallback it builds: typecheck fails on one missing. */
const FAILURE_MODE_FIELDS = { fallback: true } as const satisfies Record<keyof Exclude<StoreFailureMode, string>, true>;
const FALLBACK_SHARE_FIELDS = { store: true, share: true } as const satisfies Record<keyof FallbackShare, true>;

/**
 * What answers when the store cannot: a policy, a limiter, or the options of a fallback limiter
 * to build from a `share` of the rule.
 */
export type FailureAnswer = 'open' | 'closed' | { limiter: Limiter } | { build: CreateLimiterOptions; share: number };

/** A count or rate of a limit chosen per call (`limits[limit]`'s `field`, a function over HTTP). */
export interface ChosenField {
  limit: number;
  field: string;
  /** The field as its options name it (`limit`, `limits[1].perDay`). */
  path: string;
}

/** A limiter's options, checked once and resolved. */
export interface LimiterConfig {
  readonly rule: string;
  /** The rule as written: `withLimits` chooses values for its counts and rates. */
  readonly spec: RuleSpec;
  readonly limits: readonly BoundLimit[];
  readonly store: Store;
  /** The `clock` option, passed with every store call; `undefined` lets the store keep time. */
  readonly clock: Clock | undefined;
  /** Local time, for the breaker and deny cache. */
  readonly now: Clock;
  readonly prefix: string;
  readonly timeout: number;
  readonly shadow: boolean;
  /** The rule's block (`blockDuration`), kept after its limits in the store; absent without the option. */
  readonly block: BoundLimit | undefined;
  readonly breakers: Breakers | undefined;
  readonly denyCache: DenyCache | undefined;
  readonly onStoreError: FailureAnswer;
  readonly events: LimiterEvents;
  readonly logger: Logger;
  /**
   * Maps the key a caller gives to the key stored (e.g. the HTTP limiter's `identityOf`: a user
   * key or a client address to `key:<it>` or `ip:<address>`); must return a key already mapped
   * as it is. Absent: keys are stored as given.
   */
  readonly keyOf?: ((key: string) => string) | undefined;
  /**
   * Fields of the rule whose value is chosen per call (an HTTP rule's `limit: (req) => ...`): the
   * limits hold a placeholder there, so every operation but `reset` and `release` is refused
   * until `withLimits` gives their values. Absent: the rule's values are its own.
   */
  readonly chosenPerCall?: readonly ChosenField[] | undefined;
}

/** Splits `createLimiter`'s options into the rule and the rest, and checks both. */
export function parseLimiterOptions(options: CreateLimiterOptions): LimiterConfig {
  refusePeerOptions(options);
  if (typeof options !== 'object' || options === null) {
    throw new TollgateError('ERR_TOLLGATE_INVALID_SPEC', `spec must be an object (got ${describeValue(options)})`, 'spec');
  }
  // A misspelt name is named as written, before a rule missing what it meant to give is refused.
  refuseUnknownFields(options, CREATE_LIMITER_FIELDS, 'spec.', 'ERR_TOLLGATE_INVALID_SPEC');
  const spec = Object.fromEntries(Object.entries(options).filter(([field]) => !Object.hasOwn(LIMITER_FIELDS, field))) as RuleSpec;
  return configureLimiter(spec, bindRule(spec), options);
}

/**
 * Checks a limiter's options for a rule already bound; errors name each option under `path`
 * (`rules[0].` puts `timeout` at `rules[0].timeout`).
 */
export function configureLimiter(spec: RuleSpec, limits: readonly BoundLimit[], options: LimiterOptions, path = ''): LimiterConfig {
  const { store: givenStore, clock, prefix = 'tollgate', rule = 'default', timeout = 100, shadow = false } = options;
  assertPrefix(prefix);
  if (clock !== undefined && typeof clock !== 'function') {
    throw invalidOption(`${path}clock`, 'must be a function returning epoch milliseconds', clock);
  }
  const store = givenStore ?? new MemoryStore(clock ? { clock } : {});
  if (typeof store?.execute !== 'function') {
    throw invalidOption(`${path}store`, 'must be a MemoryStore, a RedisStore or another Store', store);
  }
  if (typeof rule !== 'string' || rule.length === 0 || rule.length > 128) {
    throw invalidOption(`${path}rule`, 'must be a name of 1-128 characters', rule);
  }
  if (typeof timeout !== 'number' || !Number.isSafeInteger(timeout) || timeout < 1) {
    throw invalidOption(`${path}timeout`, 'must be a whole number of milliseconds >= 1', timeout);
  }
  if (typeof shadow !== 'boolean') throw invalidOption(`${path}shadow`, 'must be true or false', shadow);
  const block =
    options.blockDuration === undefined ? undefined : blockLimit(blockDurationOf(options.blockDuration, `${path}blockDuration`));
  const now = clock ?? Date.now;
  return {
    rule,
    spec,
    limits,
    store,
    clock,
    now,
    prefix,
    timeout,
    shadow,
    block,
    breakers: options.breaker === false ? undefined : new Breakers(options.breaker ?? {}, now, `${path}breaker`),
    denyCache: DenyCache.forRule(
      options.denyCache,
      store instanceof MemoryStore || store.answerNow !== undefined,
      limits,
      `${path}denyCache`,
    ),
    onStoreError: failureAnswer(options.onStoreError ?? 'open', namedAsBound(spec, limits), { clock, prefix }, path),
    events: LimiterEvents.from(options.events, `${path}events`),
    logger: loggerOf(options.logger, `${path}logger`),
  };
}

/**
 * `blockDuration` in milliseconds: 0, or a duration. A bare number under 100 is refused as the
 * seconds rate-limiter-flexible's `blockDuration` counts in.
 */
function blockDurationOf(value: unknown, field: string): number {
  if (value === 0) return 0;
  if (typeof value === 'function') {
    throw invalidOption(
      field,
      "must be one duration, not a function (@nestjs/throttler's blockDuration of the context): give a route that needs another its own rule",
      value,
    );
  }
  if (typeof value === 'number' && value > 0 && value < 100) {
    throw invalidOption(
      field,
      `is in milliseconds: for ${value} seconds write '${value}s' or ${value * 1000} (rate-limiter-flexible's blockDuration is in seconds)`,
      value,
    );
  }
  try {
    return parseDuration(value, field);
  } catch {
    throw invalidOption(field, "must be 0 (refusals do not block) or a duration such as 900000 or '15m'", value);
  }
}

function loggerOf(logger: unknown, field: string): Logger {
  if (logger === undefined) return console;
  const { warn, error } = (logger ?? {}) as Partial<Logger>;
  if (typeof warn !== 'function' || typeof error !== 'function') {
    throw invalidOption(field, 'must have warn(message) and error(message, error) methods (console, pino, winston...)', logger);
  }
  return logger as Logger;
}

/**
 * `rule` with each limit carrying the name it was bound under (a rule set's rule name, a limit's
 * default name): a limiter built from it, as the fallback of a share is, reports the same names.
 */
function namedAsBound(rule: RuleSpec, limits: readonly BoundLimit[]): RuleSpec {
  if ('limits' in rule) return { ...rule, limits: rule.limits.map((limit, i) => ({ ...limit, name: limits[i]!.name })) };
  return { ...rule, name: limits[0]!.name };
}

function failureAnswer(
  mode: StoreFailureMode,
  spec: RuleSpec,
  { clock, prefix }: { clock: Clock | undefined; prefix: string },
  path: string,
): FailureAnswer {
  if (mode === 'open' || mode === 'closed') return mode;
  const fallback = typeof mode === 'object' && mode !== null ? (mode as { fallback?: unknown }).fallback : undefined;
  if (typeof fallback !== 'object' || fallback === null) {
    throw invalidOption(`${path}onStoreError`, "must be 'open', 'closed' or { fallback: Limiter | { share, store? } }", mode);
  }
  refuseUnknownFields(mode, FAILURE_MODE_FIELDS, `${path}onStoreError.`);
  if (typeof (fallback as Limiter).consume === 'function') return { limiter: fallback as Limiter };
  refuseUnknownFields(fallback, FALLBACK_SHARE_FIELDS, `${path}onStoreError.fallback.`);
  const { store, share } = fallback as FallbackShare;
  let scaled: RuleSpec;
  try {
    scaled = shareOfRule(spec, share);
  } catch (error) {
    const cause = error as TollgateError;
    throw new TollgateError(cause.code, `onStoreError.fallback: ${cause.message}`, `${path}onStoreError.fallback.${cause.field}`);
  }
  const build = {
    ...scaled,
    store: store ?? new MemoryStore(clock ? { clock } : {}),
    ...(clock ? { clock } : {}),
    prefix,
    denyCache: false,
  };
  return { build: build as CreateLimiterOptions, share };
}
