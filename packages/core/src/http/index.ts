export type { HttpAdaptiveLimiter, HttpAdaptiveOptions, HttpAdaptiveVerdict, RequestOutcome } from './adaptive-http.js';
export { createHttpAdaptiveLimiter, defaultOutcome } from './adaptive-http.js';
export type { AdaptiveNodeMiddleware } from './adaptive-node-middleware.js';
export { adaptiveNodeMiddleware } from './adaptive-node-middleware.js';
export type { RecordDecision } from './decision-recorder.js';
export { decisionRecorder } from './decision-recorder.js';
export { FIELD, policyHeader, rateLimitHeader, retryAfterSeconds } from './headers.js';
export type { HeldRequest } from './held-request.js';
export { createHttpLimiter } from './http-limiter.js';
export { ipIdentity, normaliseIp } from './ip.js';
export { headerText, mergeRateLimitHeaders, rateLimitMemberNames, withoutRateLimitMembers } from './merge-fields.js';
export { holdUnlessClosed, settleWhenDone } from './node-response.js';
export { BEHAVIOUR_FIELDS, HTTP_OPTION_FIELDS } from './options.js';
export { UNTRUSTED_PROXY_WARNING } from './proxy-check.js';
export { hasRawField, rawFieldValue } from './raw-headers.js';
export { requestRateLimit } from './request-rate-limit.js';
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
} from './types.js';
