import type {
  HttpBehaviourOptions,
  HttpRejection,
  HttpRequestInfo,
  HttpRuleSetOptions,
  HttpRuleSpec,
  LimiterOptions,
  RequestRateLimit,
} from '@tollgate/core';
import type { Context, Next } from 'koa';

/** The callbacks of the HTTP options, typed with Koa's context (the request object handed to them). */
export interface KoaCallbacks {
  /** Identity of a request (user id, API key, route + id). Return undefined to fall back to the client IP. */
  key?: (ctx: Context, info: HttpRequestInfo) => string | undefined | Promise<string | undefined>;
  /** True: let the request through untouched (not counted, no headers). */
  skip?: (ctx: Context, info: HttpRequestInfo) => boolean | Promise<boolean>;
  /** 429 body: a string, an object (sent as JSON), or a function (may be async) of the context and decision returning either. */
  message?: string | object | ((ctx: Context, decision: RequestRateLimit) => string | object | Promise<string | object>);
  /**
   * Answers a rejected request yourself (sync or async): the rate-limit headers and `Retry-After`
   * are already set, `ctx.state.rateLimit` holds the decision and `rejection` the default status,
   * content type and body. Call `next()` to let the request through after all.
   */
  handler?: (ctx: Context, next: Next, rejection: HttpRejection) => void | Promise<void>;
  /** Whether a finished request succeeded, for `skipFailedRequests` / `skipSuccessfulRequests` (sync or async). Default: `ctx.status < 400`. */
  requestWasSuccessful?: (ctx: Context) => boolean | Promise<boolean>;
}

/** A rule (any spec form of `createLimiter`, incl. `limits: [...]`, or `{ windowMs, limit }`), its store, and the HTTP behaviour. */
export type RateLimitOptions = HttpRuleSpec & LimiterOptions & Omit<HttpBehaviourOptions, keyof KoaCallbacks> & KoaCallbacks;

/** The callbacks of a rule-set middleware: no `key` (every rule names its own), plus `user`. */
export interface KoaRuleSetCallbacks extends Omit<KoaCallbacks, 'key'> {
  /** The authenticated user's id, for rules keyed by `user` (e.g. `(ctx) => ctx.state.user?.id`). */
  user?: (ctx: Context, info: HttpRequestInfo) => string | undefined | Promise<string | undefined>;
}

/** A rule set (`loadRuleSet`, `createRuleSet`, `loadRedisRuleSet`) and the HTTP behaviour every rule shares. */
export type RuleSetRateLimitOptions = Omit<HttpRuleSetOptions, keyof KoaRuleSetCallbacks> & KoaRuleSetCallbacks;
