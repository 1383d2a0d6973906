export type {
  AdaptiveEventMap,
  AdaptiveEventName,
  AdaptiveLimitEvent,
  AdaptiveListener,
  AdaptiveListeners,
  AdaptiveRejectedEvent,
  AdaptiveRejectReason,
  AdaptiveSampleEvent,
} from './adaptive/adaptive-events.js';
export type {
  AdaptiveAdmission,
  AdaptiveLimiter,
  AdaptiveRejection,
  AdaptiveSlot,
  AdaptiveSnapshot,
} from './adaptive/adaptive-limiter.js';
export { createAdaptiveLimiter } from './adaptive/adaptive-limiter.js';
export type { AdaptiveLimiterOptions, AdaptiveQueueOptions } from './adaptive/adaptive-options.js';
export type { AimdOptions } from './adaptive/limits/aimd.js';
export type { Gradient2Options } from './adaptive/limits/gradient2.js';
export type { AdaptiveLimitOption } from './adaptive/limits/parse-limit.js';
export type { LimitEstimates, LimitSample, OfLimit } from './adaptive/limits/sample.js';
export type { VegasOptions } from './adaptive/limits/vegas.js';
export type { EventLoopDelayOptions } from './adaptive/loop-delay.js';
export type { QueueOrder } from './adaptive/wait-queue.js';
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
export { DEFAULT_HOLD_TTL_MS } from './hold.js';
export type {
  AdaptiveNodeMiddleware,
  DraftVersion,
  HeaderStyle,
  HttpAdaptiveLimiter,
  HttpAdaptiveOptions,
  HttpAdaptiveVerdict,
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
  RecordDecision,
  RequestOutcome,
  RequestRateLimit,
  ResponseType,
  WindowMsRule,
} from './http/index.js';
export {
  adaptiveNodeMiddleware,
  BEHAVIOUR_FIELDS,
  createHttpAdaptiveLimiter,
  createHttpLimiter,
  decisionRecorder,
  defaultOutcome,
  FIELD,
  HTTP_OPTION_FIELDS,
  hasRawField,
  headerText,
  holdUnlessClosed,
  ipIdentity,
  mergeRateLimitHeaders,
  normaliseIp,
  policyHeader,
  rateLimitHeader,
  rateLimitMemberNames,
  rawFieldValue,
  requestRateLimit,
  retryAfterSeconds,
  settleWhenDone,
  UNTRUSTED_PROXY_WARNING,
  withoutRateLimitMembers,
} from './http/index.js';
export { encodeIdentity, MAX_IDENTITY_LENGTH } from './keys.js';
export type { LimitValues } from './limit-values.js';
export { createLimiter } from './limiter.js';
export { LIMITER_FIELDS } from './limiter-config.js';
export type {
  ConsumeOptions,
  CreateLimiterOptions,
  FallbackShare,
  Hold,
  HoldOptions,
  HoldStatus,
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
export type { LeasingStoreOptions } from './stores/leasing/leasing-options.js';
export { LeasingStore } from './stores/leasing/leasing-store.js';
export type { MemoryStoreOptions } from './stores/memory-store.js';
export { MemoryStore } from './stores/memory-store.js';
export type { RedisClient, RedisStoreOptions } from './stores/redis-store.js';
export { RedisStore } from './stores/redis-store.js';
export type { BoundLimit, Clock, OperationKind, Store, StoreOperation, StoreResult } from './stores/store.js';
export { type Cost, type CostPerUnit, DEFAULT_UNIT } from './units.js';
export type { WaitOptions } from './wait/wait-options.js';
export type { WaitAllEntry } from './wait-all.js';
export { waitAll } from './wait-all.js';
