import type {
  HttpBehaviourOptions,
  HttpRejection,
  HttpRequestInfo,
  HttpRuleSetOptions,
  HttpRuleSpec,
  LimiterOptions,
  RequestRateLimit,
} from '@tollgate/core';
import type { NextFunction, Request, Response } from 'express';

/** The callbacks of the HTTP options, typed with Express's request. */
export interface ExpressCallbacks {
  /** Identity of a request (user id, API key, route + id). Return undefined to fall back to the client IP. */
  key?: (req: Request, info: HttpRequestInfo) => string | undefined | Promise<string | undefined>;
  /** True: let the request through untouched (not counted, no headers). */
  skip?: (req: Request, info: HttpRequestInfo) => boolean | Promise<boolean>;
  /** 429 body: a string, an object (sent as JSON), or a function (may be async) of the request and decision returning either. */
  message?: string | object | ((req: Request, decision: RequestRateLimit) => string | object | Promise<string | object>);
  /**
   * Answers a rejected request yourself (sync or async), as express-rate-limit's `handler`: the
   * rate-limit headers and `Retry-After` are already set, `req.rateLimit` holds the decision and
   * `rejection` the default status, content type and body. A throw or rejection goes to `next(error)`.
   */
  handler?: (req: Request, res: Response, next: NextFunction, rejection: HttpRejection) => void | Promise<void>;
  /**
   * Whether a finished request succeeded, for `skipFailedRequests` / `skipSuccessfulRequests`
   * (sync or async), as express-rate-limit's. Default: `res.statusCode < 400`.
   */
  requestWasSuccessful?: (req: Request, res: Response) => boolean | Promise<boolean>;
}

/** A rule (any spec form of `createLimiter`, incl. `limits: [...]`, or `{ windowMs, limit }`), its store, and the HTTP behaviour. */
export type RateLimitOptions = HttpRuleSpec & LimiterOptions & Omit<HttpBehaviourOptions, keyof ExpressCallbacks> & ExpressCallbacks;

/** The callbacks of a rule-set middleware: no `key` (every rule names its own), plus `user`. */
export interface ExpressRuleSetCallbacks extends Omit<ExpressCallbacks, 'key'> {
  /** The authenticated user's id, for rules keyed by `user` (e.g. `(req) => req.user?.id`). */
  user?: (req: Request, info: HttpRequestInfo) => string | undefined | Promise<string | undefined>;
}

/** A rule set (`loadRuleSet`, `createRuleSet`, `loadRedisRuleSet`) and the HTTP behaviour every rule shares. */
export type RuleSetRateLimitOptions = Omit<HttpRuleSetOptions, keyof ExpressRuleSetCallbacks> & ExpressRuleSetCallbacks;
