import { describeValue, TollgateError } from '@tollgate/core';

/**
 * Option names of hono-rate-limiter that Tollgate spells differently, and what to write instead.
 * Checked before core's own pointers, so a Hono user is told in Hono's terms.
 */
const POINTERS: Readonly<Record<string, string>> = {
  keyGenerator: "is hono-rate-limiter's: use key ((c) => string | undefined; undefined falls back to the client address)",
  standardHeaders:
    "is hono-rate-limiter's: use headers ('draft-6' or 'draft-7' as hono-rate-limiter writes them, 'draft' for the latest, each optionally '+legacy', or false)",
  requestStorePropertyName:
    "is hono-rate-limiter's: the middleware's resetKey(key) and limiter (peek, reset) stand for the store it put on the context",
  binding: "is hono-rate-limiter's Cloudflare rate limiting binding: Tollgate counts in its own store (MemoryStore or RedisStore)",
};

function refused(field: string, pointer: string, value: unknown): TollgateError {
  return new TollgateError('ERR_TOLLGATE_INVALID_OPTION', `${field} ${pointer} (got ${describeValue(value)})`, field);
}

/** Refuses hono-rate-limiter's options that Tollgate takes under another name, and its stores, naming what to use. */
export function refuseHonoRateLimiterOptions(options: object): void {
  const fields = options as Record<string, unknown>;
  for (const field of Object.keys(POINTERS)) {
    if (fields[field] !== undefined) throw refused(field, POINTERS[field]!, fields[field]);
  }
  const store = fields.store as { increment?: unknown; execute?: unknown } | undefined;
  if (typeof store?.increment === 'function' && typeof store.execute !== 'function') {
    throw refused('store', 'is a store of hono-rate-limiter: use MemoryStore or new RedisStore({ client }) of @tollgate/hono', '[store]');
  }
}
