import type { Decision, HttpBehaviourOptions, HttpRequestInfo, HttpRuleSetOptions, LimiterOptions, RuleSpec } from '@tollgate/core';
import type { Request } from 'express';

/** The callbacks of the HTTP options, typed with Express's request. */
export interface ExpressCallbacks {
  /** Identity of a request (user id, API key, route + id). Return undefined to fall back to the client IP. */
  key?: (req: Request, info: HttpRequestInfo) => string | undefined | Promise<string | undefined>;
  /** True: let the request through untouched (not counted, no headers). */
  skip?: (req: Request, info: HttpRequestInfo) => boolean | Promise<boolean>;
  /** 429 body: a string, an object (sent as JSON), or a function of the request and decision returning either. */
  message?: string | object | ((req: Request, decision: Decision) => string | object);
}

/** A rule (any spec form of `createLimiter`, incl. `limits: [...]`), its store, and the HTTP behaviour. */
export type RateLimitOptions = RuleSpec & LimiterOptions & Omit<HttpBehaviourOptions, keyof ExpressCallbacks> & ExpressCallbacks;

/** The callbacks of a rule-set middleware: no `key` (every rule names its own), plus `user`. */
export interface ExpressRuleSetCallbacks extends Omit<ExpressCallbacks, 'key'> {
  /** The authenticated user's id, for rules keyed by `user` (e.g. `(req) => req.user?.id`). */
  user?: (req: Request, info: HttpRequestInfo) => string | undefined | Promise<string | undefined>;
}

/** A rule set (`loadRuleSet`, `createRuleSet`, `loadRedisRuleSet`) and the HTTP behaviour every rule shares. */
export type RuleSetRateLimitOptions = Omit<HttpRuleSetOptions, keyof ExpressRuleSetCallbacks> & ExpressRuleSetCallbacks;
