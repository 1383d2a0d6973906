import { describeValue, TollgateError } from './errors.js';

const NOT_READY =
  "is rate-limiter-flexible's: use timeout and onStoreError (a store that has not answered within timeout is answered by the failure mode: 'open', 'closed' or a fallback limiter)";
const CUSTOM_SCRIPT = "is rate-limiter-flexible's: the Redis script is Tollgate's, one call per decision; choose an algorithm instead";
const ALLOW_LIST =
  "is rate-limiter-flexible's (RLWrapperBlackAndWhite): use allowList (client addresses and CIDRs) or skip ((req) => boolean) of an HTTP adapter, or check the key before consume";
const DENY_LIST =
  "is rate-limiter-flexible's (RLWrapperBlackAndWhite): Tollgate keeps no deny list: refuse those keys before consume (or in an HTTP handler before the limiter)";

/** rate-limiter-flexible's options of its database stores (Mongo, Postgres, MySQL, SQLite, DynamoDB...). */
const DATABASE_STORE_OPTIONS = [
  'storeType',
  'dbName',
  'tableName',
  'tableCreated',
  'clearExpiredByTimeout',
  'indexKeyPrefix',
  'schema',
  'schemaName',
  'disableIndexesCreation',
  'dynamoTableOpts',
  'ttlSet',
];
const DATABASE_STORE =
  "is rate-limiter-flexible's option of a database store: Tollgate stores in memory or Redis (store: new RedisStore({ client }), or a MemoryStore)";

/**
 * Option names of express-rate-limit, @nestjs/throttler and rate-limiter-flexible whose meaning
 * differs from anything Tollgate takes under that name: what to write instead. Checked before
 * any other validation, so a pasted option gets this pointer rather than "not an option".
 */
const POINTERS: Readonly<Record<string, string>> = {
  standardHeaders:
    "is express-rate-limit's: use headers ('draft-6', 'draft-7', 'draft-8' as express-rate-limit writes them, 'draft' for the latest, each optionally '+legacy', or false)",
  legacyHeaders: "is express-rate-limit's: use headers ('draft+legacy' or 'legacy' send X-RateLimit-*)",
  keyGenerator: "is express-rate-limit's: use key ((req, info) => string | undefined; undefined falls back to the client IP)",
  passOnStoreError: "is express-rate-limit's: use onStoreError ('open' lets requests through when the store fails, 'closed' refuses them)",
  identifier:
    "is express-rate-limit's: use name on the limit (a string: the name in the RateLimit-Policy field; a function of the request is not supported)",
  validate: "is express-rate-limit's: Tollgate checks every option when the limiter is built and has no checks to turn off",
  ttl: "is @nestjs/throttler's: use { windowMs: ttl, limit } or { algorithm: 'fixed-window', limit, window: ttl }",
  throttlers: "is @nestjs/throttler's: use defaultRule: { limits: [{ name, algorithm: 'fixed-window', limit, window: ttl }, ...] }",
  getTracker: "is @nestjs/throttler's: use key ((req) => string | undefined)",
  generateKey: "is @nestjs/throttler's: use key, and budget: 'per-handler' to count every handler apart",
  skipIf: "is @nestjs/throttler's: use skip ((req) => boolean)",
  ignoreUserAgents: "is @nestjs/throttler's: use skip ((req) => /bot/.test(req.headers['user-agent'] ?? ''))",
  setHeaders: "is @nestjs/throttler's: use headers (false sends none)",
  storage: "is @nestjs/throttler's: use store (a MemoryStore, or new RedisStore({ client }) for ThrottlerStorageRedisService)",
  errorMessage:
    "is @nestjs/throttler's: use message (a string, an object, or (req, decision) => either); @tollgate/nestjs takes errorMessage as is",
  points: "is rate-limiter-flexible's: use { algorithm: 'fixed-window', limit: points, window: duration * 1000 }",
  duration:
    "is rate-limiter-flexible's (seconds): use { algorithm: 'fixed-window', limit: points, window: duration * 1000 } (duration 0: window: 'forever')",
  keyPrefix: "is rate-limiter-flexible's: use prefix",
  storeClient: "is rate-limiter-flexible's: use store: new RedisStore({ client })",
  insuranceLimiter: "is rate-limiter-flexible's: use onStoreError: { fallback: limiter } (or { fallback: { share } } to build one)",
  inMemoryBlockOnConsumed: "is rate-limiter-flexible's: use denyCache (on by default with a RedisStore)",
  inMemoryBlockDuration: "is rate-limiter-flexible's: use denyCache (a denial is remembered until the store said it ends)",
  execEvenly: "is rate-limiter-flexible's: use { algorithm: 'leaky-bucket', mode: 'shaping', ... } (admitted requests carry delayMs)",
  execEvenlyMinDelayMs: "is rate-limiter-flexible's: use { algorithm: 'leaky-bucket', mode: 'shaping', ... }",
  ...Object.fromEntries(DATABASE_STORE_OPTIONS.map((field) => [field, DATABASE_STORE])),
  timeoutMs: "is rate-limiter-flexible's (RLWrapperTimeouts): use timeout (ms; a store slower than that is answered by onStoreError)",
  rejectIfRedisNotReady: NOT_READY,
  rejectIfValkeyNotReady: NOT_READY,
  useRedisPackage: "is rate-limiter-flexible's: RedisStore recognises the client it is given (ioredis, node-redis, iovalkey)",
  useRedis3AndLowerPackage:
    "is rate-limiter-flexible's: RedisStore recognises the client it is given (ioredis, node-redis 4 or later, iovalkey)",
  customFunctionLibName: "is rate-limiter-flexible's: RedisStore loads its own function library (tollgate_<sha1>), named after its code",
  customIncrTtlLuaScript: CUSTOM_SCRIPT,
  customFunction: CUSTOM_SCRIPT,
  whiteList: ALLOW_LIST,
  isWhiteListed: ALLOW_LIST,
  blackList: DENY_LIST,
  isBlackListed: DENY_LIST,
  runActionAnyway: "is rate-limiter-flexible's (RLWrapperBlackAndWhite): Tollgate keeps no deny list for a call to run past",
};

function invalid(field: string, expectation: string, value: unknown): TollgateError {
  return new TollgateError('ERR_TOLLGATE_INVALID_OPTION', `${field} ${expectation} (got ${describeValue(value)})`, field);
}

/** One of @nestjs/throttler's throttlers: `{ ttl, limit, blockDuration? }`. */
interface Throttler {
  ttl: unknown;
  limit?: unknown;
  blockDuration?: unknown;
}

/** A value shaped as one of @nestjs/throttler's throttlers. */
function isThrottler(value: unknown): value is Throttler {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && 'ttl' in value;
}

/** The rule @nestjs/throttler's `{ ttl, limit, blockDuration }` is in Tollgate, for messages. */
function throttlerRuleOf({ ttl, limit, blockDuration }: Throttler): string {
  const block = typeof blockDuration === 'number' ? `, blockDuration: ${blockDuration}` : '';
  return `{ windowMs: ${typeof ttl === 'number' ? ttl : 'ttl'}, limit: ${typeof limit === 'number' ? limit : 'limit'}${block} }`;
}

/**
 * Refuses what another rate limiter's options look like where Tollgate takes its own: an option
 * name of theirs, @nestjs/throttler's list of throttlers, or its named form (`{ default: { ttl, limit } }`),
 * naming what to write instead. `what` names the options in messages, `placed` puts the rule
 * where those options take it (`{ defaultRule: <rule> }` for a Nest module).
 */
export function refusePeerOptions(options: unknown, what = 'options', placed = (rule: string) => rule): void {
  if (Array.isArray(options)) {
    const first = options.find(isThrottler);
    const rule = first === undefined ? '{ windowMs, limit }' : throttlerRuleOf(first);
    throw invalid(
      what,
      `must be an object, not @nestjs/throttler's list of throttlers: use ${placed(rule)} (several: { limits: [{ name, algorithm: 'fixed-window', limit, window }, ...] })`,
      options,
    );
  }
  if (typeof options !== 'object' || options === null) return;
  const fields = options as Record<string, unknown>;
  for (const field of Object.keys(fields)) {
    const value = fields[field];
    if (value === undefined) continue;
    const pointer = POINTERS[field];
    if (pointer !== undefined) throw invalid(field, pointer, value);
    if (isThrottler(value)) {
      throw invalid(
        field,
        `is @nestjs/throttler's named throttler: use ${throttlerRuleOf(value)} (named: { limits: [{ name: '${field}', algorithm: 'fixed-window', limit, window }] })`,
        value,
      );
    }
  }
}
