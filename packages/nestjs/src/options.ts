import type { InjectionToken, ModuleMetadata, OptionalFactoryDependency, Type } from '@nestjs/common';
import type { HttpBehaviourOptions, HttpRequestChecker, HttpRequestInfo, HttpRuleSpec, LimiterOptions, RuleSet } from '@tollgate/core';
import type { RateLimitErrorMessage } from './error-message.js';
import type { RejectVerdict } from './exchange.js';

/**
 * Answers a rejected request yourself (sync or async): write the response through `res` (the
 * platform's: Express `Response`, Fastify `FastifyReply`), or throw an exception for Nest's
 * filters to render. The verdict's headers are already set; `verdict` holds the decision and the
 * default status, content type and body.
 */
// biome-ignore lint/suspicious/noExplicitAny: Express, Fastify and plain Node requests share no type
export type RateLimitHandler = (req: any, res: any, verdict: RejectVerdict) => void | Promise<void>;

/** How requests are identified and answered (everything of the HTTP layer but the rule and the store). */
export type RateLimitHttpOptions = Omit<HttpBehaviourOptions, 'handler'> & {
  /** Answers rejected requests instead of the default body (see `RateLimitHandler`). */
  handler?: RateLimitHandler;
  /**
   * @nestjs/throttler's `errorMessage`, taken as is: the 429 body (`message` of a JSON one) as a
   * string, or a function (may be async) of the execution context and the detail of the limit
   * (`limit`, `ttl`, `totalHits`, `timeToExpire`...). Not with `message` on the same rule or module.
   */
  errorMessage?: RateLimitErrorMessage;
};

/**
 * Who shares the budget of a rule that covers several handlers (a controller's `@RateLimit`, the
 * module's `defaultRule`): `'shared'` (default) — one budget for all of them, like
 * `router.use(rateLimit(...))`; `'per-handler'` — each handler its own, as with @nestjs/throttler.
 */
export type RateLimitBudget = 'shared' | 'per-handler';

/** The limiter options a rule may override: failure mode, naming, events (the store and clock are the module's). */
export type RateLimitRuleOptions = Omit<LimiterOptions, 'store' | 'clock'>;

/**
 * What `@RateLimit()` takes: a rule in any form `createLimiter` accepts (`{ qps: 10, burst: 5 }`,
 * `{ perMinute: 300 }`, `{ algorithm: 'fixed-window', ... }`, `{ limits: [...] }`, or
 * express-rate-limit's `{ windowMs, limit }`) plus HTTP and
 * limiter options overriding the module's for this route (`onStoreError`, `timeout`, ...),
 * optionally the rule's own key prefix, and (on a controller) its `budget`.
 */
export type RateLimitSpec = HttpRuleSpec & RateLimitHttpOptions & RateLimitRuleOptions & { budget?: RateLimitBudget };

/** One rule, or several checked one after the other (each with its own `skip`/`key`: tiers, per-user plus per-IP...). */
export type RateLimitRules = RateLimitSpec | readonly RateLimitSpec[];

/** One rule of a route as the guard checks it: core's HTTP limiter and the rule's `handler`. */
export interface RouteRule extends HttpRequestChecker {
  readonly handler?: RateLimitHandler;
}

/** The module options that apply a rule set to every route without a decorator of its own. */
export interface RateLimitRuleSetOptions {
  /**
   * A rule set (`loadRuleSet`, `createRuleSet`, `loadRedisRuleSet`) for every route the guard
   * runs on that has no `@RateLimit()` and no `@SkipRateLimit()`: each request is limited by the
   * rule it matches, or not at all. Reloads apply to the next request. Not with `defaultRule`.
   */
  rules?: RuleSet;
  /** The authenticated user's id, for rules keyed by `user`. */
  // biome-ignore lint/suspicious/noExplicitAny: Express, Fastify and plain Node requests share no type
  user?: (req: any, info: HttpRequestInfo) => string | undefined | Promise<string | undefined>;
}

export type RateLimitModuleOptions = RateLimitHttpOptions &
  LimiterOptions & {
    /** Rule for every route the guard runs on that has no `@RateLimit()` of its own. Default: none (such routes are not limited). */
    defaultRule?: HttpRuleSpec;
    /** Default budget of controller rules and of `defaultRule`: `'shared'` (default) or `'per-handler'`. */
    budget?: RateLimitBudget;
  } & RateLimitRuleSetOptions;

/** A provider that builds the module's options, for `forRootAsync({ useClass })` / `forRootAsync({ useExisting })`. */
export interface RateLimitOptionsFactory {
  createRateLimitOptions(): RateLimitModuleOptions | Promise<RateLimitModuleOptions>;
}

/** Exactly one of `useFactory`, `useClass` or `useExisting`. */
export interface RateLimitModuleAsyncOptions extends Pick<ModuleMetadata, 'imports'> {
  // biome-ignore lint/suspicious/noExplicitAny: Nest factories take whatever their injected providers are
  useFactory?: (...args: any[]) => RateLimitModuleOptions | Promise<RateLimitModuleOptions>;
  /** Providers handed to `useFactory`. */
  inject?: (InjectionToken | OptionalFactoryDependency)[];
  /** A class the module instantiates (with its own dependencies) to build the options. */
  useClass?: Type<RateLimitOptionsFactory>;
  /** A provider already available (imported through `imports`) that builds the options. */
  useExisting?: InjectionToken<RateLimitOptionsFactory>;
}
