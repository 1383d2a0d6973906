export { ALGORITHMS } from './algorithms/registry.js';
export type { Algorithm, Outcome, Policy, StepResult } from './algorithms/types.js';
export type { Decision, LimitDecision } from './decision.js';
export type { Duration, DurationUnit } from './duration.js';
export { parseDuration } from './duration.js';
export type { TollgateErrorCode } from './errors.js';
export { TollgateError } from './errors.js';
export type {
  HeaderStyle,
  HttpBehaviourOptions,
  HttpLimiter,
  HttpRateLimitOptions,
  HttpRequestInfo,
  HttpVerdict,
  ResponseType,
} from './http/index.js';
export { createHttpLimiter, holdUnlessClosed, ipIdentity, normaliseIp, settleWhenDone } from './http/index.js';
export { encodeIdentity, MAX_IDENTITY_LENGTH } from './keys.js';
export type { ConsumeOptions, CreateLimiterOptions, Limiter, LimiterOptions } from './limiter.js';
export { createLimiter } from './limiter.js';
export { TOLLGATE_SCRIPT } from './lua/script.js';
export type {
  FixedWindowSpec,
  GcraSpec,
  LimitSpec,
  PerPeriodShorthand,
  QpsShorthand,
  RateShorthand,
  RuleSpec,
  TokenBucketSpec,
} from './spec.js';
export { bindRule } from './spec.js';
export type { MemoryStoreOptions } from './stores/memory-store.js';
export { MemoryStore } from './stores/memory-store.js';
export type { RedisStoreOptions } from './stores/redis-store.js';
export { RedisStore } from './stores/redis-store.js';
export type { BoundLimit, Clock, OperationKind, Store, StoreOperation, StoreResult } from './stores/store.js';
