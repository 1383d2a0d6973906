import { createHttpLimiter, type HttpRuleSetLimiter, type HttpRuleSetOptions, TollgateError } from '@tollgate/core';
import type { RateLimitHandler, RateLimitRuleSetOptions, RouteRule } from './options.js';
import { withHandler } from './route-rule.js';

/**
 * The module's options that every rule of the rule set shares: the rule set's options but `rules`
 * (given apart) and `handler` (the guard's, not core's); `key` stays with the decorators.
 */
const SHARED_FIELDS = {
  skip: true,
  cost: true,
  allowList: true,
  ipv6Subnet: true,
  headers: true,
  requestPropertyName: true,
  requestWasSuccessful: true,
  responseType: true,
  message: true,
  statusCode: true,
  storeErrorStatusCode: true,
  checkProxy: true,
  skipFailedRequests: true,
  skipSuccessfulRequests: true,
  user: true,
} as const satisfies Record<Exclude<keyof HttpRuleSetOptions, 'rules' | 'handler'>, true>;

/** The limiter of the module's rule set, with the module's HTTP options; undefined without `rules`. */
export function ruleSetLimiter(
  options: RateLimitRuleSetOptions & { defaultRule?: unknown; handler?: RateLimitHandler },
): (HttpRuleSetLimiter & RouteRule) | undefined {
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
  return withHandler<HttpRuleSetLimiter & RouteRule>(createHttpLimiter({ ...shared, rules } as HttpRuleSetOptions), options.handler);
}
