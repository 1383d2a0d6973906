export type { AlgorithmName } from './algorithms/registry.js';
export { ALGORITHMS } from './algorithms/registry.js';
export type { Algorithm, Charge, Outcome, Policy, StepResult } from './algorithms/types.js';
export type { ConcurrencyLimiter, CreateConcurrencyLimiterOptions } from './concurrency-limiter.js';
export { createConcurrencyLimiter } from './concurrency-limiter.js';
export type { Decision, DecisionSource, Lease, LimitDecision, ShadowVerdict } from './decision.js';
export type { Duration, DurationUnit } from './duration.js';
export { parseDuration } from './duration.js';
export type { TollgateErrorCode } from './errors.js';
export { describeValue, invalidOption, TollgateError } from './errors.js';
export type {
  BreakerCloseEvent,
  BreakerOpenEvent,
  BypassReason,
  DecisionEvent,
  FallbackEvent,
  LimiterEventMap,
  LimiterEventName,
  LimiterListener,
  LimiterListeners,
  StoreErrorEvent,
} from './events.js';
export type {
  DraftVersion,
  HeaderStyle,
  HttpBehaviourOptions,
  HttpLimiter,
  HttpRateLimitOptions,
  HttpRejection,
  HttpRequestChecker,
  HttpRequestInfo,
  HttpRuleSetLimiter,
  HttpRuleSetOptions,
  HttpRuleSpec,
  HttpVerdict,
  LimitFunction,
  PerRequest,
  RequestRateLimit,
  ResponseType,
  WindowMsRule,
} from './http/index.js';
export {
  createHttpLimiter,
  FIELD,
  headerText,
  holdUnlessClosed,
  ipIdentity,
  mergeRateLimitHeaders,
  normaliseIp,
  policyHeader,
  rateLimitHeader,
  requestRateLimit,
  retryAfterSeconds,
  settleWhenDone,
} from './http/index.js';
export { encodeIdentity, MAX_IDENTITY_LENGTH } from './keys.js';
export type { LimitValues } from './limit-values.js';
export { createLimiter } from './limiter.js';
export type {
  ConsumeOptions,
  CreateLimiterOptions,
  FallbackShare,
  Limiter,
  LimiterOptions,
  RefundOptions,
  StoreErrorPolicy,
  StoreFailureMode,
} from './limiter-types.js';
export type { Logger } from './logger.js';
export { TOLLGATE_SCRIPT } from './lua/script.js';
export { closestName, type FieldSet, refuseUnknownFields } from './option-fields.js';
export { refusePeerOptions } from './peer-options.js';
export type { BreakerOptions, BreakerState } from './resilience/breaker.js';
export type { DenyCacheOptions } from './resilience/deny-cache.js';
export { shareOfRule } from './resilience/share.js';
export type { RedisRuleLocation, RedisRuleSetOptions, RuleSetRedisClient } from './rules/redis-rule-set.js';
export { loadRedisRuleSet, publishRuleSet } from './rules/redis-rule-set.js';
export type { KeySelector, RuleRequest, SelectedKey } from './rules/request.js';
export { parseRuleText, readRuleFile } from './rules/rule-file.js';
export type { LoadRuleSetOptions, RuleClient, RuleMatch, RuleSet, RuleSetEventMap, RuleSetOptions, RuleSource } from './rules/rule-set.js';
export { createRuleSet, loadFromSource, loadRuleSet } from './rules/rule-set.js';
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
export type { RedisClient, RedisStoreOptions } from './stores/redis-store.js';
export { RedisStore } from './stores/redis-store.js';
export type { BoundLimit, Clock, OperationKind, Store, StoreOperation, StoreResult } from './stores/store.js';
export type { WaitOptions } from './wait/wait.js';
