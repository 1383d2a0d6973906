export type { Decision, HttpRejection, HttpRequestInfo, LimitDecision, RuleSet, Store } from '@tollgate/core';
export { createRuleSet, loadRedisRuleSet, loadRuleSet, MemoryStore, RedisStore } from '@tollgate/core';
export type { AdaptiveConcurrencyMiddleware, AdaptiveConcurrencyOptions } from './adaptive.js';
export { adaptiveConcurrency } from './adaptive.js';
export type { KoaCallbacks, KoaRuleSetCallbacks, RateLimitOptions, RuleSetRateLimitOptions } from './options.js';
export type { RateLimitMiddleware, RuleSetRateLimitMiddleware } from './rate-limit.js';
export { rateLimit } from './rate-limit.js';
