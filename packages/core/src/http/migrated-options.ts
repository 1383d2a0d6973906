import { describeValue, TollgateError } from '../errors.js';

/**
 * Option names of express-rate-limit, @nestjs/throttler and rate-limiter-flexible whose meaning
 * differs from anything Tollgate takes under that name: what to write instead.
 */
const POINTERS: Readonly<Record<string, string>> = {
  standardHeaders:
    "is express-rate-limit's: use headers ('draft' for the RateLimit-Policy / RateLimit fields, 'draft+legacy', 'legacy' or false)",
  legacyHeaders: "is express-rate-limit's: use headers ('draft+legacy' or 'legacy' send X-RateLimit-*)",
  keyGenerator: "is express-rate-limit's: use key ((req, info) => string | undefined; undefined falls back to the client IP)",
  requestWasSuccessful: "is express-rate-limit's: Tollgate counts a status >= 400 or an aborted request as failed (skipFailedRequests)",
  passOnStoreError: "is express-rate-limit's: use onStoreError ('open' lets requests through when the store fails, 'closed' refuses them)",
  identifier: "is express-rate-limit's: use name on the limit (the name in the RateLimit-Policy field)",
  validate: "is express-rate-limit's: Tollgate checks every option when the limiter is built and has no checks to turn off",
  ttl: "is @nestjs/throttler's: use { windowMs, limit } or { algorithm: 'fixed-window', limit, window }",
  blockDuration: 'has no equivalent: a denied client is limited until its window or bucket lets it through again',
  points: "is rate-limiter-flexible's: use { algorithm: 'fixed-window', limit: points, window: duration * 1000 }",
  duration: "is rate-limiter-flexible's (seconds): use { algorithm: 'fixed-window', limit: points, window: duration * 1000 }",
  keyPrefix: "is rate-limiter-flexible's: use prefix",
};

/** Shorthands and algorithm fields that, with `windowMs`, would make the rule ambiguous. */
const OTHER_RULE_FIELDS = ['algorithm', 'limits', 'qps', 'rate', 'perSecond', 'perMinute', 'perHour', 'perDay', 'window'];

function invalid(field: string, expectation: string, value: unknown): TollgateError {
  return new TollgateError('ERR_TOLLGATE_INVALID_OPTION', `${field} ${expectation} (got ${describeValue(value)})`, field);
}

/** Refuses the option names of other rate limiters that Tollgate spells differently, naming Tollgate's. */
export function refuseForeignOptions(options: object): void {
  const fields = options as Record<string, unknown>;
  for (const field of Object.keys(POINTERS)) {
    if (fields[field] !== undefined) throw invalid(field, POINTERS[field]!, fields[field]);
  }
  const store = fields.store as { increment?: unknown; execute?: unknown } | undefined;
  if (typeof store?.increment === 'function' && typeof store.execute !== 'function') {
    throw invalid('store', 'is a store of express-rate-limit: use MemoryStore or RedisStore({ client }) of @tollgate/core', '[store]');
  }
}

/**
 * Accepts express-rate-limit's rule, `{ windowMs, limit }` (or its older `max`), as the
 * fixed window it is — a counter per client that starts with its first request and resets
 * `windowMs` later — and refuses other libraries' option names with the Tollgate name to use.
 */
export function translateMigratedOptions<T extends object>(options: T): T {
  refuseForeignOptions(options);
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
  return { ...rest, algorithm: 'fixed-window', limit, window: windowMs };
}
