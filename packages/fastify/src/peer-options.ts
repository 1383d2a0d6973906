import { parse } from '@lukeed/ms';
import { invalidOption } from '@tollgate/core';

/**
 * Options of @fastify/rate-limit that Tollgate spells differently or does without: what to write
 * instead. Checked before anything else, so a pasted option gets this pointer rather than
 * "not an option".
 */
const POINTERS: Readonly<Record<string, string>> = {
  keyGenerator: "is @fastify/rate-limit's: use key ((request, info) => string | undefined; undefined falls back to request.ip)",
  errorResponseBuilder:
    "is @fastify/rate-limit's: use message ((request, decision) => body) for the 429 body, or handler ((request, reply, rejection) => ...) to answer yourself or throw to the app's error handler",
  onExceeding: "is @fastify/rate-limit's: use events: { allowed: (event) => ... } (event.decision.remaining says how close the client is)",
  onExceeded: "is @fastify/rate-limit's: use events: { denied: (event) => ... }",
  onBanReach: 'has no equivalent: Tollgate has no ban; a denied client is limited until its window or bucket lets it through again',
  ban: 'has no equivalent: Tollgate has no ban; a denied client is limited until its window or bucket lets it through again',
  addHeaders:
    "is @fastify/rate-limit's: use headers ('legacy' sends X-RateLimit-Limit/Remaining/Reset, 'draft' the RateLimit fields, false none)",
  addHeadersOnExceeding:
    "is @fastify/rate-limit's: use headers ('legacy' sends X-RateLimit-Limit/Remaining/Reset, 'draft' the RateLimit fields, false none)",
  enableDraftSpec: "is @fastify/rate-limit's: use headers ('draft' for the latest draft, 'draft-6' for RateLimit-Limit/Remaining/Reset)",
  redis: "is @fastify/rate-limit's: use store: new RedisStore({ client: redis })",
  nameSpace: "is @fastify/rate-limit's: use prefix",
  skipOnError: "is @fastify/rate-limit's: use onStoreError: 'open' (the default) to let requests through when the store fails",
  cache: 'has no equivalent: the memory store drops a client once its state has expired',
  continueExceeding: "has no equivalent: a denied request takes nothing, the client's window or bucket refills as usual",
  exponentialBackoff:
    "has no equivalent: use { algorithm: 'gcra' } or a token bucket, which let a denied client back in as the rate allows",
  groupId: 'has no equivalent: give routes that share a count one rateLimitHook (or the plugin without config.rateLimit)',
};

/** @fastify/rate-limit's defaults: 1000 requests per minute. */
const DEFAULT_MAX = 1000;
const DEFAULT_TIME_WINDOW_MS = 60_000;

function timeWindowMs(timeWindow: unknown): number {
  if (timeWindow === undefined) return DEFAULT_TIME_WINDOW_MS;
  if (typeof timeWindow === 'number') return timeWindow;
  const parsed = typeof timeWindow === 'string' ? parse(timeWindow) : undefined;
  if (parsed === undefined) {
    throw invalidOption(
      'timeWindow',
      "must be milliseconds or a duration such as '1 minute' (a function is @fastify/rate-limit's only)",
      timeWindow,
    );
  }
  return parsed;
}

/**
 * Accepts @fastify/rate-limit's rule, `{ max, timeWindow }` (either may be left out: 1000 per
 * minute, as there), as the fixed window it is, and its `allowList` of addresses; refuses its
 * other options naming Tollgate's. express-rate-limit's `{ windowMs, max }` is left to core.
 */
export function translatePeerOptions<T extends object>(options: T): T {
  if (typeof options !== 'object' || options === null) return options;
  refuseFastifyPeerOptions(options);
  const fields = options as Record<string, unknown>;
  const { timeWindow, ...rest } = fields;
  if (timeWindow !== undefined && fields.windowMs !== undefined) {
    throw invalidOption('timeWindow', 'cannot be combined with windowMs: give { max, timeWindow } or { windowMs, limit }', timeWindow);
  }
  if (timeWindow === undefined && (fields.max === undefined || fields.windowMs !== undefined)) return options;
  return { ...rest, windowMs: timeWindowMs(timeWindow), max: fields.max ?? DEFAULT_MAX } as T;
}

/** Refuses the options of @fastify/rate-limit that Tollgate spells differently or does without, naming what to write instead. */
export function refuseFastifyPeerOptions(options: object): void {
  const fields = options as Record<string, unknown>;
  for (const field of Object.keys(fields)) {
    const pointer = POINTERS[field];
    if (pointer !== undefined && fields[field] !== undefined) throw invalidOption(field, pointer, fields[field]);
  }
  if (typeof fields.allowList === 'function') {
    throw invalidOption('allowList', "is a function in @fastify/rate-limit's: use skip ((request, info) => boolean)", fields.allowList);
  }
  if (typeof fields.store === 'function') {
    throw invalidOption('store', "is a store class of @fastify/rate-limit's: use MemoryStore or new RedisStore({ client })", fields.store);
  }
}
