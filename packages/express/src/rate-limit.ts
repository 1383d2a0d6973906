import {
  createHttpLimiter,
  type HttpLimiter,
  type HttpRateLimitOptions,
  type HttpRequestInfo,
  type HttpRuleSetLimiter,
  type HttpRuleSetOptions,
  type HttpVerdict,
  headerText,
  holdUnlessClosed,
  mergeRateLimitHeaders,
  type RequestRateLimit,
  type RuleSet,
  settleWhenDone,
} from '@tollgate/core';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { clientAddress, proxyCheck } from './client-address.js';
import type { RateLimitOptions, RuleSetRateLimitOptions } from './options.js';
import { recordDecision } from './request-decision.js';

declare global {
  // Express exposes its Request type for augmentation only through this global namespace.
  namespace Express {
    interface Request {
      /**
       * The decision of the last Tollgate middleware this request went through, with
       * express-rate-limit's `limit`, `used`, `remaining`, `resetTime` and `key` (absent when
       * skipped). Declared present, as express-rate-limit's `AugmentedRequest` declares it, so code
       * written for either compiles.
       */
      rateLimit: RequestRateLimit;
    }
  }
}

/**
 * The middleware: `await middleware(req, res, next)` resolves once `next` was called (or the
 * response answered), and never rejects.
 */
export type RateLimitMiddleware = RequestHandler & Pick<HttpLimiter, 'limiter' | 'resetKey'>;

export type RuleSetRateLimitMiddleware = RequestHandler & Pick<HttpRuleSetLimiter, 'rules' | 'identitiesOf'>;

function requestInfo(req: Request): HttpRequestInfo {
  const url = req.originalUrl ?? req.url;
  const query = url.indexOf('?');
  const { headers } = req;
  return { ip: clientAddress(req), method: req.method, path: query === -1 ? url : url.slice(0, query), headers, raw: req };
}

const NO_HEADERS = Object.freeze({});

/** For a limiter that reads only the address: an Express request changes shape as it goes, so every property read of it costs a slow lookup. */
function addressInfo(req: Request): HttpRequestInfo {
  return { ip: clientAddress(req), method: '', path: '', headers: NO_HEADERS, raw: req };
}

type Handler = NonNullable<RateLimitOptions['handler']>;

/** What applies a verdict: undefined when done at once, else a promise settled once `next` was called or the response answered. */
type Applied = undefined | Promise<unknown>;

function apply(verdict: HttpVerdict, req: Request, res: Response, next: NextFunction, handler: Handler | undefined, name: string): Applied {
  if (verdict.action === 'skip') {
    next();
    return;
  }
  // An earlier limiter may have decided on this request: its RateLimit fields are kept. Without
  // one (the common case) the response is not asked for them.
  const merge = recordDecision(req, verdict.decision, verdict.key, name, verdict.action === 'pass' ? verdict.held : undefined);
  const headers = merge ? mergeRateLimitHeaders(verdict.headers, (name) => headerText(res.getHeader(name))) : verdict.headers;
  // Looked up once: every property read of an Express 5 response is a slow one.
  const setHeader = res.setHeader;
  for (let i = 0; i < headers.length; i++) setHeader.call(res, headers[i]![0], headers[i]![1]);
  if (verdict.action === 'reject' && handler !== undefined) {
    return new Promise<void>((resolve) => resolve(handler(req, res, next, verdict))).catch(next);
  }
  if (verdict.action === 'reject') {
    res.statusCode = verdict.status;
    res.setHeader('content-type', verdict.contentType);
    res.end(verdict.body);
    return;
  }
  settleWhenDone(res, verdict.settle);
  if (verdict.delayMs <= 0) {
    next();
    return;
  }
  return holdUnlessClosed(res, verdict.delayMs).then((open) => open && next());
}

/**
 * Express (4 and 5) middleware: counts each request against the rule — or, given `{ rules }`,
 * against the rule of the rule set it matches (no match: not limited) — sets the RateLimit
 * headers and answers 429 once the limit is reached. Use it on the app, a router or a route.
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
  const check = http.checkNow ?? http.check;
  const checkProxy = proxyCheck(http.untrustedProxy);
  const middleware = (req: Request, res: Response, next: NextFunction): Applied => {
    checkProxy?.(req);
    const verdict = check(info(req));
    // Known at once (memory store): the request goes on in this tick, with no promise.
    if (!(verdict instanceof Promise)) return apply(verdict, req, res, next, handler, name);
    // A failure of the check or of answering goes to `next`: the promise returned never rejects.
    return verdict.then((known) => apply(known, req, res, next, handler, name)).catch(next);
  };
  return 'rules' in http
    ? Object.assign(middleware, { rules: http.rules, identitiesOf: http.identitiesOf })
    : Object.assign(middleware, { limiter: http.limiter, resetKey: http.resetKey });
}
