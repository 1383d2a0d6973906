import type { InjectionToken, ModuleMetadata, OptionalFactoryDependency } from '@nestjs/common';
import type { HttpRateLimitOptions, LimiterOptions, RuleSpec } from '@tollgate/core';
import type { RateLimitRuleSetOptions } from './rule-set-limiter.js';

/** How requests are identified and answered (everything of the HTTP layer but the rule and the store). */
export type RateLimitHttpOptions = Pick<
  HttpRateLimitOptions,
  | 'key'
  | 'skip'
  | 'allowList'
  | 'ipv6Subnet'
  | 'headers'
  | 'responseType'
  | 'message'
  | 'statusCode'
  | 'storeErrorStatusCode'
  | 'skipFailedRequests'
  | 'skipSuccessfulRequests'
>;

/** The limiter options a rule may override: failure policy, naming, events (the store and clock are the module's). */
export type RateLimitRuleOptions = Omit<LimiterOptions, 'store' | 'clock'>;

/**
 * What `@RateLimit()` takes: a rule in any form `createLimiter` accepts (`{ qps: 10, burst: 5 }`,
 * `{ perMinute: 300 }`, `{ algorithm: 'fixed-window', ... }`, `{ limits: [...] }`) plus HTTP and
 * limiter options overriding the module's for this route (`onStoreError`, `timeout`, ...), and
 * optionally the rule's own key prefix.
 */
export type RateLimitSpec = RuleSpec & RateLimitHttpOptions & RateLimitRuleOptions;

/** One rule, or several checked one after the other (each with its own `skip`/`key`: tiers, per-user plus per-IP...). */
export type RateLimitRules = RateLimitSpec | readonly RateLimitSpec[];

export type RateLimitModuleOptions = RateLimitHttpOptions &
  LimiterOptions & {
    /** Rule for every route the guard runs on that has no `@RateLimit()` of its own. Default: none (such routes are not limited). */
    defaultRule?: RuleSpec;
  } & RateLimitRuleSetOptions;

export interface RateLimitModuleAsyncOptions extends Pick<ModuleMetadata, 'imports'> {
  // biome-ignore lint/suspicious/noExplicitAny: Nest factories take whatever their injected providers are
  useFactory: (...args: any[]) => RateLimitModuleOptions | Promise<RateLimitModuleOptions>;
  inject?: (InjectionToken | OptionalFactoryDependency)[];
}
