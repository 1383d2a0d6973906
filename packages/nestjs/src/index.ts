export type { HttpLimiter, HttpRequestChecker, HttpRequestInfo, HttpVerdict, RuleSet } from '@tollgate/core';
export { createRuleSet, loadRedisRuleSet, loadRuleSet } from '@tollgate/core';
export type { AdaptiveConcurrencyMiddleware, AdaptiveConcurrencyOptions } from './adaptive.js';
export { adaptiveConcurrency } from './adaptive.js';
export { RateLimit, SkipRateLimit } from './decorators.js';
export type { RateLimitErrorExtensions } from './exceptions.js';
export { ClientClosedRequestException, RateLimitRejectedException } from './exceptions.js';
export type { PassVerdict, RateLimitExchange, RateLimitedRequest, RejectVerdict } from './exchange.js';
export { httpExchange, requestInfo } from './exchange.js';
export type {
  RateLimitBudget,
  RateLimitHandler,
  RateLimitHttpOptions,
  RateLimitModuleAsyncOptions,
  RateLimitModuleOptions,
  RateLimitOptionsFactory,
  RateLimitRuleOptions,
  RateLimitRuleSetOptions,
  RateLimitRules,
  RateLimitSpec,
  RouteRule,
} from './options.js';
export { RateLimitGuard } from './rate-limit.guard.js';
export { RateLimitInterceptor } from './rate-limit.interceptor.js';
export { RateLimitModule } from './rate-limit.module.js';
export { RateLimitRegistry } from './rate-limit.registry.js';
export { RATE_LIMIT_OPTIONS } from './tokens.js';
