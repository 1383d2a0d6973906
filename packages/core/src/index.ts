export { ALGORITHMS } from './algorithms/registry.js';
export type { Algorithm, Outcome, Policy, StepResult } from './algorithms/types.js';
export type { ConcurrencyLimiter, CreateConcurrencyLimiterOptions } from './concurrency-limiter.js';
export { createConcurrencyLimiter } from './concurrency-limiter.js';
export type { Decision, Lease, LimitDecision } from './decision.js';
export type { Duration, DurationUnit } from './duration.js';
export { parseDuration } from './duration.js';
export type { TollgateErrorCode } from './errors.js';
export { TollgateError } from './errors.js';
export { encodeIdentity, MAX_IDENTITY_LENGTH } from './keys.js';
export type { ConsumeOptions, CreateLimiterOptions, Limiter, LimiterOptions } from './limiter.js';
export { createLimiter } from './limiter.js';
export { TOLLGATE_SCRIPT } from './lua/script.js';
export type {
  ConcurrencySpec,
  FixedWindowSpec,
  GcraSpec,
  LeakyBucketSpec,
  LimitSpec,
  PerPeriodShorthand,
  QpsShorthand,
  RateShorthand,
  RuleSpec,
  SlidingWindowCounterSpec,
  SlidingWindowLogSpec,
  TokenBucketSpec,
  WarmUpSpec,
} from './spec.js';
export { bindRule } from './spec.js';
export type { MemoryStoreOptions } from './stores/memory-store.js';
export { MemoryStore } from './stores/memory-store.js';
export type { RedisStoreOptions } from './stores/redis-store.js';
export { RedisStore } from './stores/redis-store.js';
export type { BoundLimit, Clock, OperationKind, Store, StoreOperation, StoreResult } from './stores/store.js';
