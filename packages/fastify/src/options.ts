import type {
  HttpBehaviourOptions,
  HttpRejection,
  HttpRequestInfo,
  HttpRuleSetOptions,
  HttpRuleSpec,
  LimiterOptions,
  LimitFunction,
  RequestRateLimit,
} from '@tollgate/core';
import type { FastifyReply, FastifyRequest } from 'fastify';

/** The callbacks of the HTTP options, typed with Fastify's request and reply. */
export interface FastifyCallbacks {
  /** Identity of a request (user id, API key, route + id). Return undefined to fall back to the client IP (`request.ip`). */
  key?: (request: FastifyRequest, info: HttpRequestInfo) => string | undefined | Promise<string | undefined>;
  /** True: let the request through untouched (not counted, no headers). */
  skip?: (request: FastifyRequest, info: HttpRequestInfo) => boolean | Promise<boolean>;
  /** 429 body: a string, an object (sent as JSON), or a function (may be async) of the request and decision returning either. */
  message?: string | object | ((request: FastifyRequest, decision: RequestRateLimit) => string | object | Promise<string | object>);
  /**
   * Answers a rejected request yourself (sync or async): the rate-limit headers and `Retry-After`
   * are already on the reply, `request.rateLimit` holds the decision and `rejection` the default
   * status, content type and body. Send with `reply`, or throw: what it throws (or rejects with)
   * goes to Fastify's error handling, the app's `setErrorHandler` included.
   */
  handler?: (request: FastifyRequest, reply: FastifyReply, rejection: HttpRejection) => unknown;
  /** Whether a finished request succeeded, for `skipFailedRequests` / `skipSuccessfulRequests` (sync or async). Default: `reply.statusCode < 400`. */
  requestWasSuccessful?: (request: FastifyRequest, reply: FastifyReply) => boolean | Promise<boolean>;
}

/** The request hook a limiter runs in: `onRequest` (default, before the body is read) or `preHandler` (after auth decorated the request). */
export type RateLimitHookName = 'onRequest' | 'preHandler';

/** Where the limiter runs. */
export interface HookPlacement {
  /** `'onRequest'` (default) or `'preHandler'`, so `key` can read what an auth hook put on the request. */
  hook?: RateLimitHookName;
}

/**
 * @fastify/rate-limit's rule, accepted as is: `max` requests (default 1000) per `timeWindow`
 * (milliseconds, or a duration such as `'1 minute'`; default one minute), a fixed window per
 * client starting with its first request.
 */
export type TimeWindowRule = { name?: string } & (
  | { max: number | LimitFunction; timeWindow?: number | string }
  | { max?: number | LimitFunction; timeWindow: number | string }
);

/**
 * A rule (any spec form of `createLimiter`, incl. `limits: [...]`, express-rate-limit's
 * `{ windowMs, limit }` or @fastify/rate-limit's `{ max, timeWindow }`), its store, and the HTTP behaviour.
 */
export type RateLimitOptions = (HttpRuleSpec | TimeWindowRule) &
  LimiterOptions &
  Omit<HttpBehaviourOptions, keyof FastifyCallbacks> &
  FastifyCallbacks &
  HookPlacement;

/** The callbacks of a rule-set limiter: no `key` (every rule names its own), plus `user`. */
export interface FastifyRuleSetCallbacks extends Omit<FastifyCallbacks, 'key'> {
  /** The authenticated user's id, for rules keyed by `user` (e.g. `(request) => request.user?.id` with `hook: 'preHandler'`). */
  user?: (request: FastifyRequest, info: HttpRequestInfo) => string | undefined | Promise<string | undefined>;
}

/** A rule set (`loadRuleSet`, `createRuleSet`, `loadRedisRuleSet`) and the HTTP behaviour every rule shares. */
export type RuleSetRateLimitOptions = Omit<HttpRuleSetOptions, keyof FastifyRuleSetCallbacks> & FastifyRuleSetCallbacks & HookPlacement;

/** What a route's `config.rateLimit` may change of the plugin's options: any of them, the rule included. */
export type RouteRateLimitOptions = Partial<RateLimitOptions> | Partial<RuleSetRateLimitOptions>;

/** The plugin's options: a rule (or a rule set) and its HTTP behaviour, or, with `global: false`, the defaults of the routes that opt in. */
export type RateLimitPluginOptions = (RateLimitOptions | RuleSetRateLimitOptions | RouteRateLimitOptions) & {
  /**
   * True (default): every route of the context the plugin is registered in (and of its child
   * contexts) is limited by this rule, but those whose `config.rateLimit` is `false`. False: only
   * the routes whose `config.rateLimit` is an object are limited, by the rule it gives.
   */
  global?: boolean;
};
