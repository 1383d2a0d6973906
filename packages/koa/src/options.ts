import type { Decision, HttpBehaviourOptions, HttpRequestInfo, HttpRuleSetOptions, LimiterOptions, RuleSpec } from '@tollgate/core';
import type { Context } from 'koa';

/** The callbacks of the HTTP options, typed with Koa's context (the request object handed to them). */
export interface KoaCallbacks {
  /** Identity of a request (user id, API key, route + id). Return undefined to fall back to the client IP. */
  key?: (ctx: Context, info: HttpRequestInfo) => string | undefined | Promise<string | undefined>;
  /** True: let the request through untouched (not counted, no headers). */
  skip?: (ctx: Context, info: HttpRequestInfo) => boolean | Promise<boolean>;
  /** 429 body: a string, an object (sent as JSON), or a function of the context and decision returning either. */
  message?: string | object | ((ctx: Context, decision: Decision) => string | object);
}

/** A rule (any spec form of `createLimiter`, incl. `limits: [...]`), its store, and the HTTP behaviour. */
export type RateLimitOptions = RuleSpec & LimiterOptions & Omit<HttpBehaviourOptions, keyof KoaCallbacks> & KoaCallbacks;

/** The callbacks of a rule-set middleware: no `key` (every rule names its own), plus `user`. */
export interface KoaRuleSetCallbacks extends Omit<KoaCallbacks, 'key'> {
  /** The authenticated user's id, for rules keyed by `user` (e.g. `(ctx) => ctx.state.user?.id`). */
  user?: (ctx: Context, info: HttpRequestInfo) => string | undefined | Promise<string | undefined>;
}

/** A rule set (`loadRuleSet`, `createRuleSet`, `loadRedisRuleSet`) and the HTTP behaviour every rule shares. */
export type RuleSetRateLimitOptions = Omit<HttpRuleSetOptions, keyof KoaRuleSetCallbacks> & KoaRuleSetCallbacks;
