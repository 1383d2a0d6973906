export type { Decision, HttpRejection, HttpRequestInfo, LimitDecision, RuleSet, Store } from '@tollgate/core';
export { createRuleSet, loadRedisRuleSet, loadRuleSet, MemoryStore, RedisStore } from '@tollgate/core';
export type {
  HonoAddressOptions,
  HonoCallbacks,
  HonoRuleSetCallbacks,
  RateLimitOptions,
  RuleSetRateLimitOptions,
  TrustProxy,
} from './options.js';
export type { RateLimitMiddleware, RateLimitVariables, RuleSetRateLimitMiddleware } from './rate-limit.js';
export { rateLimit } from './rate-limit.js';
