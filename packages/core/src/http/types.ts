import type { Decision } from '../decision.js';
import type { PerCallFieldName } from '../limit-values.js';
import type { Limiter, LimiterOptions } from '../limiter-types.js';
import type { RuleClient, RuleMatch, RuleSet } from '../rules/rule-set.js';
import type { LimitSpec } from '../spec.js';

/** What an adapter extracts from its framework's request. */
export interface HttpRequestInfo {
  /**
   * Client address as the framework resolved it — it honours the framework's trust-proxy
   * setting (Express `req.ip`, Koa `ctx.ip`, Fastify `request.ip`). Never read X-Forwarded-For here.
   */
  ip: string | undefined;
  method: string;
  /** URL path without the query string. */
  path: string;
  headers: Readonly<Record<string, string | string[] | undefined>>;
  /** The framework's own request object, handed to user callbacks (`key`, `skip`, handler). */
  raw: unknown;
}

export type HeaderStyle = 'draft' | 'draft+legacy' | 'legacy';
export type ResponseType = 'text' | 'json' | 'problem+json';

/** The HTTP behaviour on top of a rule; see `HttpRateLimitOptions`. */
export interface HttpBehaviourOptions {
  /**
   * Identity of a request. Default: client IP (IPv6 grouped by `ipv6Subnet`, IPv4-mapped IPv6 normalised).
   * Return undefined, or '' (an empty header), to fall back to the IP.
   */
  // biome-ignore lint/suspicious/noExplicitAny: the framework's own request type, chosen by the adapter
  key?: (req: any, info: HttpRequestInfo) => string | undefined | Promise<string | undefined>;
  /** True: let the request through untouched (not counted, no headers). */
  // biome-ignore lint/suspicious/noExplicitAny: the framework's own request type, chosen by the adapter
  skip?: (req: any, info: HttpRequestInfo) => boolean | Promise<boolean>;
  /** IPs / CIDRs never limited. */
  allowList?: readonly string[];
  /** Prefix length IPv6 clients are grouped by (default 64); false = whole address. */
  ipv6Subnet?: number | false;
  /**
   * 'draft' (default: latest IETF draft structured fields RateLimit-Policy / RateLimit),
   * 'draft+legacy' (also X-RateLimit-Limit/Remaining/Reset), 'legacy', or false.
   */
  headers?: HeaderStyle | false;
  /** 429 body format: 'text' (default) | 'json' | 'problem+json'. */
  responseType?: ResponseType;
  /** Custom body: a string/object, or a function of the request and decision. */
  // biome-ignore lint/suspicious/noExplicitAny: the framework's own request type, chosen by the adapter
  message?: string | object | ((req: any, decision: Decision) => string | object | Promise<string | object>);
  /**
   * Answers a rejected request instead of the default body: full control of the response, sync
   * or async. Its arguments are the adapter's (Express `(req, res, next, rejection)`, Koa
   * `(ctx, next, rejection)`, Nest `(req, res, verdict)`); core only checks it is a function.
   */
  // biome-ignore lint/suspicious/noExplicitAny: each adapter types its own arguments
  handler?: (...args: any[]) => unknown;
  /** Status of a rejected request. Default 429. */
  statusCode?: number;
  /**
   * Status of a request denied because the store failed under `onStoreError: 'closed'`
   * (`decision.source === 'policy'`): the service, not the client, is at fault. Default 503.
   */
  storeErrorStatusCode?: number;
  /** Refund after the response: don't count requests that failed (status >= 400 or aborted). */
  skipFailedRequests?: boolean;
  /** Refund after the response: don't count requests that succeeded (status < 400). */
  skipSuccessfulRequests?: boolean;
}

/**
 * A count or rate of a rule chosen for each request, sync or async, from the framework's request
 * and its info: `limit: (req) => plans[req.user.plan]`. Throwing or rejecting fails the request
 * as a throwing `key()` does (the framework's error handling); a value the field cannot take
 * rejects with `ERR_TOLLGATE_INVALID_SPEC`.
 */
// biome-ignore lint/suspicious/noExplicitAny: the framework's own request type, chosen by the adapter
export type LimitFunction = (req: any, info: HttpRequestInfo) => number | Promise<number>;

/** A spec whose counts and rates (`limit`, `burst`, `capacity`, `qps`, `perMinute`...) may be `LimitFunction`s. */
export type PerRequest<S> = S extends unknown ? { [K in keyof S]: K extends PerCallFieldName ? S[K] | LimitFunction : S[K] } : never;

/**
 * express-rate-limit's rule, accepted as is: `limit` (or its older name `max`) requests per
 * `windowMs` milliseconds, a fixed window per client starting with its first request.
 */
export type WindowMsRule = { name?: string; windowMs: number } & ({ limit: number | LimitFunction } | { max: number | LimitFunction });

/**
 * A rule as the HTTP layer takes it: any spec form of createLimiter, or express-rate-limit's
 * `{ windowMs, limit }`, each count and rate a number or a function of the request.
 */
export type HttpRuleSpec = PerRequest<LimitSpec> | { limits: readonly PerRequest<LimitSpec>[] } | WindowMsRule;

/** Options every adapter accepts: a rule (any spec form of createLimiter, incl. `limits: [...]`) plus the HTTP behaviour. */
export type HttpRateLimitOptions = HttpRuleSpec & LimiterOptions & HttpBehaviourOptions;

/**
 * Options of an HTTP limiter driven by a rule set: each request is limited by the rule it
 * matches (its limits, its key), or not at all when no rule matches. The HTTP behaviour options
 * apply to every rule; `key` is not one of them, since every rule names its own.
 */
export interface HttpRuleSetOptions extends Omit<HttpBehaviourOptions, 'key'> {
  /** From `loadRuleSet`, `createRuleSet` or `loadRedisRuleSet`; reloads apply to the next request. */
  rules: RuleSet;
  /** The authenticated user's id, for rules keyed by `user`; undefined for anonymous requests. */
  // biome-ignore lint/suspicious/noExplicitAny: the framework's own request type, chosen by the adapter
  user?: (req: any, info: HttpRequestInfo) => string | undefined | Promise<string | undefined>;
}

/** What every HTTP limiter does: decide one request. */
export interface HttpRequestChecker {
  check(info: HttpRequestInfo): Promise<HttpVerdict>;
  /**
   * True when `check` reads nothing of its info but `ip` and `raw` (an inline rule without `key`
   * or `skip`): an adapter may then leave `method`, `path` and `headers` empty instead of reading them.
   */
  readonly readsOnlyAddress?: boolean;
  /**
   * The verdict `check` resolves to, returned at once when it is known without waiting (an
   * inline rule on the memory store, without `key` or `skip`, admitting or skipping the
   * request), else the same promise as `check`. Never throws. An adapter calling it spares the
   * request its promise hops.
   */
  checkNow?(info: HttpRequestInfo): HttpVerdict | Promise<HttpVerdict>;
}

/** An HTTP limiter of one rule given inline. */
export interface HttpLimiter extends HttpRequestChecker {
  /**
   * The core limiter underneath. Its keyed operations (`reset`, `peek`, `refund`, ...) take what
   * a client is known by, mapped through `identityOf`: `limiter.reset('203.0.113.7')`, or
   * `limiter.reset(userId)` when the `key` function returns user ids.
   */
  readonly limiter: Limiter;
  /**
   * The identity (the key as stored, as decision events report it) of a client named by what
   * the `key` function returns (when there is one) or by its address (normalised, IPv6 grouped by
   * `ipv6Subnet`); `key:<yours>` and `ip:<address>` name either kind explicitly and map to
   * themselves. Throws `ERR_TOLLGATE_INVALID_KEY` for a bare string that is not an address on a
   * limiter without a `key` function.
   */
  identityOf(keyOrAddress: string): string;
}

/** An HTTP limiter of a rule set. */
export interface HttpRuleSetLimiter extends HttpRequestChecker {
  /** The rule set it matches requests against. */
  readonly rules: RuleSet;
  /**
   * Every rule and tier (in force now) that limits a client known by `client` — its address,
   * user id (`user()`), headers (names in lower case; `x-api-key` for `apiKey` rules) — with its
   * limiter and the key it limits the client under (an address grouped as requests are), whatever
   * the method, path and tier conditions. Resetting a client in every rule:
   * `for (const { limiter, key } of http.identitiesOf({ ip, user })) await limiter.reset(key)`.
   * Throws `ERR_TOLLGATE_INVALID_KEY` when `ip` is not an address.
   */
  identitiesOf(client: RuleClient): RuleMatch[];
}

export type HttpVerdict =
  /** Skipped / allow-listed: touch nothing. */
  | { action: 'skip' }
  | {
      action: 'pass';
      decision: Decision;
      /** The fields to set, `[name, value]`, names in lower case. */
      headers: [string, string][];
      /** > 0: hold the request this long before passing it on (shaping). */
      delayMs: number;
      /**
       * Call exactly once when the response has finished or the connection closed
       * (status undefined when aborted). Refunds / releases concurrency leases as configured.
       */
      settle(statusCode: number | undefined): void;
    }
  | {
      action: 'reject';
      decision: Decision;
      status: number;
      /** The fields to set, `[name, value]`, names in lower case. */
      headers: [string, string][];
      contentType: string;
      /** What to answer with: `payload` as sent (the text itself, or its JSON). */
      body: string;
      /** The body as a value: the text (`text/plain`), or the object `body` is the JSON of. */
      payload: string | object;
    };

/** A rejected request's verdict: the decision, and the status, headers, content type and body (and payload) to answer with. */
export type HttpRejection = Extract<HttpVerdict, { action: 'reject' }>;
