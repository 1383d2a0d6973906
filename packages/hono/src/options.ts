import type {
  HttpBehaviourOptions,
  HttpRejection,
  HttpRequestInfo,
  HttpRuleSetOptions,
  HttpRuleSpec,
  LimiterOptions,
  RequestRateLimit,
} from '@tollgate/core';
import type { Context, Next } from 'hono';
import type { GetConnInfo } from 'hono/conninfo';

/**
 * Which proxies may name the client in `X-Forwarded-For`, with the values of Express's `trust proxy`:
 * true (every hop), a number of hops, an address, a CIDR or a name of proxy-addr's (`'loopback'`,
 * `'linklocal'`, `'uniquelocal'`), a comma-separated string or a list of those, or a function of an
 * address and its hop (0 is the connection's). False: the connection's address alone.
 */
export type TrustProxy = boolean | number | string | readonly string[] | ((address: string, hop: number) => boolean);

/** Where the client address of a request comes from. */
export interface HonoAddressOptions {
  /** The proxies trusted to name the client in `X-Forwarded-For` (see `TrustProxy`). Default false. */
  trustProxy?: TrustProxy;
  /**
   * The runtime's `getConnInfo` (from `hono/bun`, `hono/deno`, ...), which gives the connection's
   * address. Default: `@hono/node-server`'s, for apps served by `@hono/node-server`.
   */
  getConnInfo?: GetConnInfo;
}

/** The address options: the compiler refuses this object when one is missing. */
export const ADDRESS_FIELDS = { trustProxy: true, getConnInfo: true } as const satisfies Record<keyof HonoAddressOptions, true>;

/** The callbacks of the HTTP options, typed with Hono's context (the request object handed to them). */
export interface HonoCallbacks {
  /** Identity of a request (user id, API key, route + id). Return undefined to fall back to the client IP. */
  key?: (c: Context, info: HttpRequestInfo) => string | undefined | Promise<string | undefined>;
  /** True: let the request through untouched (not counted, no headers). */
  skip?: (c: Context, info: HttpRequestInfo) => boolean | Promise<boolean>;
  /** 429 body: a string, an object (sent as JSON), or a function (may be async) of the context and decision returning either. */
  message?: string | object | ((c: Context, decision: RequestRateLimit) => string | object | Promise<string | object>);
  /**
   * Answers a rejected request yourself (sync or async), as hono-rate-limiter's `handler`: the
   * rate-limit fields and `Retry-After` are already set, `c.get('rateLimit')` holds the decision and
   * `rejection` the default status, content type and body. Return the response (`c.json(...)`), or
   * call `next()` to let the request through after all.
   */
  // biome-ignore lint/suspicious/noConfusingVoidType: what Hono's middleware returns, so `return next()` fits
  handler?: (c: Context, next: Next, rejection: HttpRejection) => Response | void | Promise<Response | void>;
  /** Whether a finished request succeeded, for `skipFailedRequests` / `skipSuccessfulRequests` (sync or async). Default: `c.res.status < 400`. */
  requestWasSuccessful?: (c: Context) => boolean | Promise<boolean>;
}

/** A rule (any spec form of `createLimiter`, incl. `limits: [...]`, or `{ windowMs, limit }`), its store, and the HTTP behaviour. */
export type RateLimitOptions = HttpRuleSpec &
  LimiterOptions &
  Omit<HttpBehaviourOptions, keyof HonoCallbacks> &
  HonoCallbacks &
  HonoAddressOptions;

/** The callbacks of a rule-set middleware: no `key` (every rule names its own), plus `user`. */
export interface HonoRuleSetCallbacks extends Omit<HonoCallbacks, 'key'> {
  /** The authenticated user's id, for rules keyed by `user` (e.g. `(c) => c.get('user')?.id`). */
  user?: (c: Context, info: HttpRequestInfo) => string | undefined | Promise<string | undefined>;
}

/** A rule set (`loadRuleSet`, `createRuleSet`, `loadRedisRuleSet`) and the HTTP behaviour every rule shares. */
export type RuleSetRateLimitOptions = Omit<HttpRuleSetOptions, keyof HonoRuleSetCallbacks> & HonoRuleSetCallbacks & HonoAddressOptions;
