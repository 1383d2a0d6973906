import { createHttpLimiter, type HttpRequestInfo, type HttpRuleSetOptions, type RuleSet, TollgateError } from '@tollgate/core';
import type { RateLimitHandler, RouteRule } from './options.js';
import { withHandler } from './route-rule.js';

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

/**
 * The module's options that every rule of the rule set shares: the rule set's options but `rules`
 * (given apart) and `handler` (the guard's, not core's); `key` stays with the decorators.
 */
const SHARED_FIELDS = {
  skip: true,
  allowList: true,
  ipv6Subnet: true,
  headers: true,
  responseType: true,
  message: true,
  statusCode: true,
  storeErrorStatusCode: true,
  skipFailedRequests: true,
  skipSuccessfulRequests: true,
  user: true,
} as const satisfies Record<Exclude<keyof HttpRuleSetOptions, 'rules' | 'handler'>, true>;

/** The limiter of the module's rule set, with the module's HTTP options; undefined without `rules`. */
export function ruleSetLimiter(
  options: RateLimitRuleSetOptions & { defaultRule?: unknown; handler?: RateLimitHandler },
): RouteRule | undefined {
  const { rules } = options;
  if (rules === undefined) return undefined;
  if (options.defaultRule !== undefined) {
    throw new TollgateError(
      'ERR_TOLLGATE_INVALID_OPTION',
      'defaultRule cannot be combined with rules: add a rule without `match` at the end of the rule set instead',
      'defaultRule',
    );
  }
  const shared: Record<string, unknown> = {};
  for (const field of Object.keys(SHARED_FIELDS)) {
    const value = (options as Record<string, unknown>)[field];
    if (value !== undefined) shared[field] = value;
  }
  return withHandler(createHttpLimiter({ ...shared, rules } as HttpRuleSetOptions), options.handler);
}
