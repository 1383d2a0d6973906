export type { Decision, HttpRejection, HttpRequestInfo, LimitDecision, RequestRateLimit, RuleSet, Store } from '@tollgate/core';
export { createRuleSet, loadRedisRuleSet, loadRuleSet, MemoryStore, RedisStore } from '@tollgate/core';
export type {
  FastifyCallbacks,
  FastifyRuleSetCallbacks,
  HookPlacement,
  RateLimitHookName,
  RateLimitOptions,
  RateLimitPluginOptions,
  RouteRateLimitOptions,
  RuleSetRateLimitOptions,
  TimeWindowRule,
} from './options.js';
export { rateLimit, rateLimit as default } from './plugin.js';
export type { RateLimitHook, RequestHook, RuleSetRateLimitHook } from './rate-limit-hook.js';
export { rateLimitHook } from './rate-limit-hook.js';
