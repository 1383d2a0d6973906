import type { Decision } from '../decision.js';
import type { PerCallFieldName } from '../limit-values.js';
import type { Limiter, LimiterOptions } from '../limiter-types.js';
import type { RuleClient, RuleMatch, RuleSet } from '../rules/rule-set.js';
import type { LimitSpec } from '../spec.js';
import type { Cost } from '../units.js';
import type { HeldRequest } from './held-request.js';

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

/** A version of draft-ietf-httpapi-ratelimit-headers: 6, 7 and 8 as express-rate-limit writes them, 11 the latest. */
export type DraftVersion = 'draft-6' | 'draft-7' | 'draft-8' | 'draft-11';
/**
 * The rate-limit fields sent: `'draft'` (the latest draft, `'draft-11'`) or an earlier draft, each
 * optionally `+legacy` (also `X-RateLimit-Limit/Remaining/Reset`), or `'legacy'` alone.
 */
export type HeaderStyle = 'draft' | DraftVersion | `${'draft' | DraftVersion}+legacy` | 'legacy';
export type ResponseType = 'text' | 'json' | 'problem+json';

/** The HTTP behaviour on top of a rule; see `HttpRateLimitOptions`. */
export interface HttpBehaviourOptions {
  /**
   * Identity of a request. Default: client IP (IPv6 grouped by `ipv6Subnet`, IPv4-mapped IPv6 normalised).
   * Return undefined, or '' (an empty header), to fall back to the IP.
   */
  // biome-ignore lint/suspicious/noExplicitAny: the framework's own request type, chosen by the adapter
  key?: (req: any, info: HttpRequestInfo) => string | undefined | Promise<string | undefined>;
  /**
   * The estimate each request holds instead of being counted at once (sync or async, e.g.
   * `(req) => ({ requests: 1, tokens: req.body.max_tokens })`): the handler settles what it really
   * cost with `req.rateLimit.settle(actual)` (Koa: `ctx.state.rateLimit`), before the response ends.
   * A request the handler left unsettled is settled at its estimate when its response ends, or
   * given back (cancelled) when the client went away first or the refund options give it back.
   */
  // biome-ignore lint/suspicious/noExplicitAny: the framework's own request type, chosen by the adapter
  cost?: (req: any, info: HttpRequestInfo) => Cost | Promise<Cost>;
  /** True: let the request through untouched (not counted, no headers). */
  // biome-ignore lint/suspicious/noExplicitAny: the framework's own request type, chosen by the adapter
  skip?: (req: any, info: HttpRequestInfo) => boolean | Promise<boolean>;
  /** IPs / CIDRs never limited. */
  allowList?: readonly string[];
  /** Prefix length IPv6 clients are grouped by (default 64); false = whole address. */
  ipv6Subnet?: number | false;
  /**
   * 'draft' (default: latest IETF draft structured fields RateLimit-Policy / RateLimit, also
   * 'draft-11'), 'draft-8', 'draft-7' or 'draft-6' (as express-rate-limit's `standardHeaders`
   * writes them), each optionally '+legacy' (also X-RateLimit-Limit/Remaining/Reset), 'legacy'
   * alone, or false: no rate-limit field at all, `Retry-After` included.
   */
  headers?: HeaderStyle | false;
  /** Where the decision is put on the request (Express and Nest: `req[name]`, Koa: `ctx.state[name]`). Default `rateLimit`. */
  requestPropertyName?: string;
  /** 429 body format: 'text' (default) | 'json' | 'problem+json'. */
  responseType?: ResponseType;
  /** Custom body: a string/object, or a function of the request and decision. */
  // biome-ignore lint/suspicious/noExplicitAny: the framework's own request type, chosen by the adapter
  message?: string | object | ((req: any, decision: RequestRateLimit) => string | object | Promise<string | object>);
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
  /**
   * Warn once (through the limiter's `logger`) when a request carries `X-Forwarded-For` or
   * `Forwarded` while the framework trusts no proxy: every client behind the proxy would share the
   * proxy's budget. Default true; false when no proxy stands in front and clients send the header themselves.
   */
  checkProxy?: boolean;
  /** Refund after the response: don't count requests that failed (status >= 400 or aborted). */
  skipFailedRequests?: boolean;
  /** Refund after the response: don't count requests that succeeded (status < 400). */
  skipSuccessfulRequests?: boolean;
  /**
   * Whether a finished request succeeded, for `skipFailedRequests` / `skipSuccessfulRequests`
   * (sync or async). Default: its status is below 400. Its arguments are the adapter's (Express
   * `(req, res)`, Koa `(ctx)`, Nest `(req, res)`). A request whose connection closed before its
   * response was sent failed, whatever this says.
   */
  // biome-ignore lint/suspicious/noExplicitAny: each adapter types its own arguments
  requestWasSuccessful?: (req: any, res: any) => boolean | Promise<boolean>;
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
  /** The `requestPropertyName` option: where an adapter puts the decision on the request. Absent: `rateLimit`. */
  readonly requestPropertyName?: string;
  /**
   * Called by the adapter for a request carrying `X-Forwarded-For` or `Forwarded` while its
   * framework trusts no proxy: warns once. Absent with `checkProxy: false`.
   */
  readonly untrustedProxy?: () => void;
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
  /**
   * express-rate-limit's `resetKey`: forgets the state of the client named as `identityOf` takes
   * it (what `key` returns, or an address), so its next request starts afresh. Rejects with
   * `ERR_TOLLGATE_INVALID_KEY` as `identityOf` throws.
   */
  resetKey(keyOrAddress: string): Promise<void>;
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

/**
 * What an HTTP limiter records on the request (`req.rateLimit`): the decision, plus the fields
 * express-rate-limit puts there, so code reading them keeps working.
 */
export interface RequestRateLimit extends Decision {
  /** Units of the reported limit in use: `limit - remaining` (a denied request takes none). */
  readonly used: number;
  /** When the reported limit is full again: `decidedAtMs + resetAfterMs`. */
  readonly resetTime: Date;
  /** What the request was counted under: what `key` returned, else the client address (an IPv6 one as its subnet). */
  readonly key: string;
  /** With the `cost` option: charges what the request really cost instead of its estimate (see `HeldRequest.settle`). */
  readonly settle?: HeldRequest['settle'];
  /** With the `cost` option: gives the request's whole estimate back. */
  readonly cancel?: HeldRequest['cancel'];
}

export type HttpVerdict =
  /** Skipped / allow-listed: touch nothing. */
  | { action: 'skip' }
  | {
      action: 'pass';
      decision: Decision;
      /** What the request was counted under (see `RequestRateLimit.key`). */
      key: string;
      /** The fields to set, `[name, value]`, names in lower case. */
      headers: [string, string][];
      /** > 0: hold the request this long before passing it on (shaping). */
      delayMs: number;
      /**
       * Call exactly once when the response has finished or the connection closed
       * (status undefined when aborted), with the response `requestWasSuccessful` is given.
       * Refunds / releases concurrency leases as configured.
       */
      settle(statusCode: number | undefined, response?: unknown): void;
      /** With the `cost` option: the request's hold, for the adapter to put on the request (`req.rateLimit.settle`). */
      held?: HeldRequest;
    }
  | {
      action: 'reject';
      decision: Decision;
      /** What the request was counted under (see `RequestRateLimit.key`). */
      key: string;
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
