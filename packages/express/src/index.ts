export type { Decision, HttpRequestInfo, LimitDecision, Store } from '@tollgate/core';
export { MemoryStore, RedisStore } from '@tollgate/core';
export type { ExpressCallbacks, RateLimitOptions } from './options.js';
export type { RateLimitMiddleware } from './rate-limit.js';
export { rateLimit } from './rate-limit.js';
