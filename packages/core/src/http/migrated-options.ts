import { describeValue, TollgateError } from '../errors.js';
import { refusePeerOptions } from '../peer-options.js';

/** Shorthands and algorithm fields that, with `windowMs`, would make the rule ambiguous. */
const OTHER_RULE_FIELDS = ['algorithm', 'limits', 'qps', 'rate', 'perSecond', 'perMinute', 'perHour', 'perDay', 'window'];

function invalid(field: string, expectation: string, value: unknown): TollgateError {
  return new TollgateError('ERR_TOLLGATE_INVALID_OPTION', `${field} ${expectation} (got ${describeValue(value)})`, field);
}

/** Refuses the option names of other rate limiters that Tollgate spells differently, naming Tollgate's. */
export function refuseForeignOptions(options: object): void {
  refusePeerOptions(options);
  const fields = options as Record<string, unknown>;
  const store = fields.store as { increment?: unknown; execute?: unknown } | undefined;
  if (typeof store?.increment === 'function' && typeof store.execute !== 'function') {
    throw invalid('store', 'is a store of express-rate-limit: use MemoryStore or RedisStore({ client }) of @tollgate/core', '[store]');
  }
}

/**
 * Accepts express-rate-limit's rule, `{ windowMs, limit }` (or its older `max`), as the
 * fixed window it is — a counter per client that starts with its first request and resets
 * `windowMs` later. Other libraries' option names are refused first (`refuseForeignOptions`).
 */
export function translateMigratedOptions<T extends object>(options: T): T {
  const fields = options as Record<string, unknown>;
  if (fields.windowMs !== undefined) return windowRule(fields) as T;
  if (fields.max !== undefined) throw invalid('max', "is express-rate-limit's: use { windowMs, limit } or { perMinute }", fields.max);
  const rule = OTHER_RULE_FIELDS.find((field) => fields[field] !== undefined);
  if (fields.limit !== undefined && rule === undefined) {
    throw invalid('windowMs', 'is required with limit unless an algorithm is named (express-rate-limit defaulted it to 60000)', undefined);
  }
  return options;
}

function windowRule(fields: Record<string, unknown>): Record<string, unknown> {
  const { windowMs, max, ...rest } = fields;
  const other = OTHER_RULE_FIELDS.find((field) => rest[field] !== undefined);
  if (other !== undefined) {
    throw invalid('windowMs', `cannot be combined with ${other}: give { windowMs, limit } alone, or window with the algorithm`, windowMs);
  }
  if (max !== undefined && rest.limit !== undefined) throw invalid('max', 'cannot be combined with limit (max is its older name)', max);
  const limit = rest.limit ?? max;
  if (limit === undefined) throw invalid('limit', 'is required with windowMs (the requests a client may make per window)', limit);
  // Milliseconds by name: a short window is what the user wrote, not seconds meant.
  const window = typeof windowMs === 'number' && windowMs > 0 && Number.isFinite(windowMs) ? `${windowMs}ms` : windowMs;
  return { ...rest, algorithm: 'fixed-window', limit, window };
}
