export { createHttpLimiter } from './http-limiter.js';
export { ipIdentity, normaliseIp } from './ip.js';
export { holdUnlessClosed, settleWhenDone } from './node-response.js';
export type {
  HeaderStyle,
  HttpBehaviourOptions,
  HttpLimiter,
  HttpRateLimitOptions,
  HttpRequestChecker,
  HttpRequestInfo,
  HttpRuleSetLimiter,
  HttpRuleSetOptions,
  HttpVerdict,
  ResponseType,
} from './types.js';
