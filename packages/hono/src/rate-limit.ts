import {
  createHttpLimiter,
  type HttpLimiter,
  type HttpRateLimitOptions,
  type HttpRequestInfo,
  type HttpRuleSetLimiter,
  type HttpRuleSetOptions,
  type HttpVerdict,
  invalidOption,
  mergeRateLimitHeaders,
  type RequestRateLimit,
  requestRateLimit,
} from '@tollgate/core';
import type { Context, MiddlewareHandler, Next } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { clientAddressReader } from './client-address.js';
import { ADDRESS_FIELDS, type HonoAddressOptions, type RateLimitOptions, type RuleSetRateLimitOptions } from './options.js';
import { refuseHonoRateLimiterOptions } from './peer-options.js';
import { proxyCheck } from './proxy-check.js';
import { proceed } from './response-end.js';

/** The context variables the middleware sets: `c.get('rateLimit')` (absent when the request was skipped). */
export interface RateLimitVariables {
  /** The decision of the last Tollgate middleware this request went through, with hono-rate-limiter's `limit`, `used`, `remaining`, `resetTime`. */
  rateLimit?: RequestRateLimit;
}

declare module 'hono' {
  interface ContextVariableMap extends RateLimitVariables {}
}

type Middleware = MiddlewareHandler<{ Variables: RateLimitVariables }>;

export type RateLimitMiddleware = Middleware & Pick<HttpLimiter, 'limiter' | 'resetKey'>;

export type RuleSetRateLimitMiddleware = Middleware & Pick<HttpRuleSetLimiter, 'rules' | 'identitiesOf'>;

type Fields = readonly (readonly [string, string])[];

/**
 * Where a Tollgate middleware leaves the rate-limit fields it set on a context, for a later one to
 * merge its fields with: a property of the context, which costs less per request than a WeakMap
 * entry, hidden behind a symbol from Hono and the app.
 */
const FIELDS_SET = Symbol('tollgate.fieldsSet');

type LimitedContext = Context & { [FIELDS_SET]?: Fields };

function requestInfo(c: Context, ip: string | undefined): HttpRequestInfo {
  const { raw } = c.req;
  return { ip, method: raw.method, path: c.req.path, headers: Object.fromEntries(raw.headers), raw: c };
}

const NO_HEADERS = Object.freeze({});

/** Splits the address options off the options core takes. */
function splitAddressOptions<T extends object>(options: T): { address: HonoAddressOptions; rest: T } {
  const address: Record<string, unknown> = {};
  const rest: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(options)) {
    if (Object.hasOwn(ADDRESS_FIELDS, field)) address[field] = value;
    else rest[field] = value;
  }
  return { address, rest: rest as T };
}

/**
 * Sets the verdict's fields on the response to come, through `c.header`: Hono adds them to the
 * response a handler builds with `c.text`, `c.json`... (reading `c.res` before then would make
 * @hono/node-server build a full `Response` for every request).
 */
function setFields(c: LimitedContext, verdict: Exclude<HttpVerdict, { action: 'skip' }>): Fields {
  const earlier = c[FIELDS_SET];
  const fields = earlier === undefined ? verdict.headers : mergeRateLimitHeaders(verdict.headers, (name) => fieldValue(earlier, name));
  c[FIELDS_SET] = fields;
  for (let i = 0; i < fields.length; i++) c.header(fields[i]![0], fields[i]![1]);
  return fields;
}

function fieldValue(fields: Fields, name: string): string | undefined {
  return fields.find((field) => field[0] === name)?.[1];
}

/** Sets the fields again on a response the handler built itself (`new Response(...)`), which Hono gives none of them. */
function keepFields(c: Context, fields: Fields): void {
  if (fields.length === 0 || c.res.headers.has(fields[0]![0])) return;
  for (let i = 0; i < fields.length; i++) c.header(fields[i]![0], fields[i]![1]);
}

type Handler = NonNullable<RateLimitOptions['handler']>;

/** The middleware's answer once the limited part of the chain is done: a handler's or a held request's own response, if any. */
function finish(c: Context, answered: unknown, fields: Fields): Response | undefined {
  // A handler's `return next()` answers what Hono's next resolves to (the context), not a response.
  const response = answered instanceof Response ? answered : undefined;
  if (response !== undefined) c.res = response;
  keepFields(c, fields);
  return response === undefined ? undefined : c.res;
}

/** Applies a verdict with one promise for an admitted request: each `async` step would add its own. */
function apply(c: Context, next: Next, verdict: HttpVerdict, handler: Handler | undefined, name: string): Promise<unknown> {
  if (verdict.action === 'skip') return next();
  c.set(name as 'rateLimit', requestRateLimit(verdict.decision, verdict.key, verdict.action === 'pass' ? verdict.held : undefined));
  const fields = setFields(c, verdict);
  if (verdict.action === 'reject' && handler === undefined) {
    return Promise.resolve(c.body(verdict.body, verdict.status as ContentfulStatusCode, { 'content-type': verdict.contentType }));
  }
  const answered =
    verdict.action === 'reject'
      ? new Promise((resolve) => resolve(handler!(c, next, verdict)))
      : proceed(c, next, verdict.delayMs, verdict.settle);
  return answered.then((outcome) => finish(c, outcome, fields));
}

/**
 * Hono (4) middleware: counts each request against the rule — or, given `{ rules }`, against the
 * rule of the rule set it matches (no match: not limited) — sets the RateLimit fields and answers
 * 429 once the limit is reached. Use it on the app (`app.use`), a path or a route. The client
 * address comes from `getConnInfo` (`trustProxy` decides whether `X-Forwarded-For` is read); the
 * decision is `c.get('rateLimit')`.
 */
export function rateLimit(options: RateLimitOptions): RateLimitMiddleware;
export function rateLimit(options: RuleSetRateLimitOptions): RuleSetRateLimitMiddleware;
export function rateLimit(options: RateLimitOptions | RuleSetRateLimitOptions): RateLimitMiddleware | RuleSetRateLimitMiddleware {
  if (typeof options !== 'object' || options === null) throw invalidOption('options', 'must be an object', options);
  refuseHonoRateLimiterOptions(options);
  const { address, rest } = splitAddressOptions(options);
  const http = createHttpLimiter(rest as HttpRateLimitOptions | HttpRuleSetOptions);
  const clientAddress = clientAddressReader(address);
  const { handler } = options;
  const name = http.requestPropertyName ?? 'rateLimit';
  const info = http.readsOnlyAddress
    ? (c: Context): HttpRequestInfo => ({ ip: clientAddress(c), method: '', path: '', headers: NO_HEADERS, raw: c })
    : (c: Context) => requestInfo(c, clientAddress(c));
  const check = http.checkNow ?? http.check;
  const checkProxy = proxyCheck(http.untrustedProxy, address.trustProxy);
  const middleware = ((c: Context, next: Next) => {
    checkProxy?.(c);
    const verdict = check(info(c));
    // Known at once (memory store): applied in this tick, with no promise of its own.
    if (!(verdict instanceof Promise)) return apply(c, next, verdict, handler, name);
    return verdict.then((known) => apply(c, next, known, handler, name));
  }) as Middleware;
  return 'rules' in http
    ? Object.assign(middleware, { rules: http.rules, identitiesOf: http.identitiesOf })
    : Object.assign(middleware, { limiter: http.limiter, resetKey: http.resetKey });
}
