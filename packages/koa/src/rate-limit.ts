import {
  createHttpLimiter,
  type HttpLimiter,
  type HttpRateLimitOptions,
  type HttpRequestInfo,
  type HttpRuleSetLimiter,
  type HttpRuleSetOptions,
  headerText,
  holdUnlessClosed,
  mergeRateLimitHeaders,
  type RequestRateLimit,
  type RuleSet,
  requestRateLimit,
  settleWhenDone,
} from '@tollgate/core';
import type { Context, Middleware } from 'koa';
import type { RateLimitOptions, RuleSetRateLimitOptions } from './options.js';
import { proxyCheck } from './proxy-check.js';

declare module 'koa' {
  interface DefaultState {
    /** The decision of the last Tollgate middleware this request went through (absent when skipped). */
    rateLimit?: RequestRateLimit;
  }
}

export type RateLimitMiddleware = Middleware & Pick<HttpLimiter, 'limiter' | 'resetKey'>;

export type RuleSetRateLimitMiddleware = Middleware & Pick<HttpRuleSetLimiter, 'rules' | 'identitiesOf'>;

function requestInfo(ctx: Context): HttpRequestInfo {
  const url = ctx.originalUrl;
  const query = url.indexOf('?');
  return { ip: ctx.ip, method: ctx.method, path: query === -1 ? url : url.slice(0, query), headers: ctx.headers, raw: ctx };
}

const NO_HEADERS = Object.freeze({});

/** For a limiter that reads only the address: `method`, `path` and `headers` go unread. */
function addressInfo(ctx: Context): HttpRequestInfo {
  return { ip: ctx.ip, method: '', path: '', headers: NO_HEADERS, raw: ctx };
}

/**
 * Koa (2 and 3) middleware: counts each request against the rule — or, given `{ rules }`, against
 * the rule of the rule set it matches (no match: not limited) — sets the RateLimit headers
 * and answers 429 once the limit is reached. The client IP is `ctx.ip` (`app.proxy` decides
 * whether X-Forwarded-For is trusted); the decision is on `ctx.state.rateLimit`.
 */
// One signature over both forms, not two overloads: a misspelt field is then the one the compiler
// names (`'brust' does not exist`), where overloads would report the last one's complaint (`'qps' does not exist`).
export function rateLimit<S extends RuleSet | undefined = undefined>(
  options: (RateLimitOptions & { rules?: undefined }) | (RuleSetRateLimitOptions & { rules: S }),
): S extends RuleSet ? RuleSetRateLimitMiddleware : RateLimitMiddleware;
export function rateLimit(options: RateLimitOptions | RuleSetRateLimitOptions): RateLimitMiddleware | RuleSetRateLimitMiddleware {
  const http = createHttpLimiter(options as HttpRateLimitOptions | HttpRuleSetOptions);
  const { handler } = options;
  const name = http.requestPropertyName ?? 'rateLimit';
  const info = http.readsOnlyAddress ? addressInfo : requestInfo;
  const checkProxy = proxyCheck(http.untrustedProxy);
  const middleware: Middleware = async (ctx, next) => {
    checkProxy?.(ctx);
    const verdict = await http.check(info(ctx));
    if (verdict.action === 'skip') return next();
    ctx.state[name] = requestRateLimit(verdict.decision, verdict.key, verdict.action === 'pass' ? verdict.held : undefined);
    // Another Tollgate middleware may have run on this request: its RateLimit fields are kept.
    const headers = mergeRateLimitHeaders(verdict.headers, (name) => headerText(ctx.res.getHeader(name)));
    for (let i = 0; i < headers.length; i++) ctx.set(headers[i]![0], headers[i]![1]);
    if (verdict.action === 'reject' && handler !== undefined) return handler(ctx, next, verdict);
    if (verdict.action === 'reject') {
      ctx.status = verdict.status;
      ctx.type = verdict.contentType;
      ctx.body = verdict.body;
      return;
    }
    settleWhenDone(ctx.res, verdict.settle, ctx);
    if (verdict.delayMs > 0 && !(await holdUnlessClosed(ctx.res, verdict.delayMs))) return;
    await next();
  };
  return 'rules' in http
    ? Object.assign(middleware, { rules: http.rules, identitiesOf: http.identitiesOf })
    : Object.assign(middleware, { limiter: http.limiter, resetKey: http.resetKey });
}
