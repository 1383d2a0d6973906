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
  invalidOption,
  mergeRateLimitHeaders,
  type RequestRateLimit,
  settleWhenDone,
} from '@tollgate/core';
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import type { RateLimitHookName, RateLimitOptions, RuleSetRateLimitOptions } from './options.js';
import { translatePeerOptions } from './peer-options.js';
import { proxyCheck } from './proxy-check.js';
import { recordDecision } from './request-decision.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The decision of the last Tollgate limiter this request went through (absent when skipped). */
    rateLimit?: RequestRateLimit;
  }
}

/** A Fastify request hook (`onRequest` or `preHandler`) that limits the requests it sees. */
export type RequestHook = ((request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => void) & {
  /** The hook it is meant for: the `hook` option, default `'onRequest'`. */
  readonly hook: RateLimitHookName;
};

export type RateLimitHook = RequestHook & Pick<HttpLimiter, 'limiter' | 'resetKey'>;

export type RuleSetRateLimitHook = RequestHook & Pick<HttpRuleSetLimiter, 'rules' | 'identitiesOf'>;

function requestInfo(request: FastifyRequest): HttpRequestInfo {
  const { url } = request.raw;
  const query = url === undefined ? -1 : url.indexOf('?');
  const path = url === undefined ? '/' : query === -1 ? url : url.slice(0, query);
  return { ip: request.ip, method: request.method, path, headers: request.headers, raw: request };
}

const NO_HEADERS = Object.freeze({});

/** For a limiter that reads only the address: `method`, `path` and `headers` go unread. */
function addressInfo(request: FastifyRequest): HttpRequestInfo {
  return { ip: request.ip, method: '', path: '', headers: NO_HEADERS, raw: request };
}

type Handler = NonNullable<RateLimitOptions['handler']>;

/** What a held request resolves to when its client went away meanwhile: the request goes no further. */
const CLIENT_GONE = Symbol('client gone');

/** Applies a verdict: undefined when done at once, else a promise settled once the request may go on or was answered. */
function apply(verdict: HttpVerdict, request: FastifyRequest, reply: FastifyReply, handler: Handler | undefined, name: string) {
  if (verdict.action === 'skip') return;
  // An earlier limiter may have decided on this request: its RateLimit fields are kept. Without
  // one (the common case) the reply is not asked for them.
  const merge = recordDecision(request, verdict.decision, verdict.key, name, verdict.action === 'pass' ? verdict.held : undefined);
  const headers = merge ? mergeRateLimitHeaders(verdict.headers, (field) => headerText(reply.getHeader(field))) : verdict.headers;
  for (let i = 0; i < headers.length; i++) reply.header(headers[i]![0], headers[i]![1]);
  if (verdict.action === 'reject' && handler !== undefined) return new Promise((resolve) => resolve(handler(request, reply, verdict)));
  if (verdict.action === 'reject') {
    reply.code(verdict.status).type(verdict.contentType).send(verdict.body);
    return;
  }
  settleWhenDone(reply.raw, verdict.settle, reply);
  if (verdict.delayMs > 0) return holdUnlessClosed(reply.raw, verdict.delayMs).then((open) => (open ? undefined : CLIENT_GONE));
  return;
}

/**
 * A Fastify hook limiting every request it sees: put it in a route's `onRequest` (or `preHandler`)
 * or add it with `app.addHook(hook.hook, hook)`. The plugin builds one for its options and for
 * each route's `config.rateLimit`; build one yourself to keep its `limiter` at hand.
 */
export function rateLimitHook(options: RateLimitOptions): RateLimitHook;
export function rateLimitHook(options: RuleSetRateLimitOptions): RuleSetRateLimitHook;
export function rateLimitHook(options: RateLimitOptions | RuleSetRateLimitOptions): RateLimitHook | RuleSetRateLimitHook;
export function rateLimitHook(options: RateLimitOptions | RuleSetRateLimitOptions): RateLimitHook | RuleSetRateLimitHook {
  const { hook = 'onRequest', ...rest } = translatePeerOptions(options);
  if (hook !== 'onRequest' && hook !== 'preHandler') throw invalidOption('hook', "must be 'onRequest' or 'preHandler'", hook);
  const http = createHttpLimiter(rest as HttpRateLimitOptions | HttpRuleSetOptions);
  const { handler } = options;
  const name = http.requestPropertyName ?? 'rateLimit';
  const info = http.readsOnlyAddress ? addressInfo : requestInfo;
  const check = http.checkNow ?? http.check;
  const checkProxy = proxyCheck(http.untrustedProxy);
  const limit = (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void => {
    checkProxy?.(request);
    const verdict = check(info(request));
    // Known at once (memory store): the request goes on in this tick, with no promise.
    const settled =
      verdict instanceof Promise
        ? verdict.then((known) => apply(known, request, reply, handler, name))
        : apply(verdict, request, reply, handler, name);
    if (settled === undefined) done();
    // A failure of the check or of the handler goes to Fastify's error handling.
    else settled.then((outcome) => outcome !== CLIENT_GONE && done(), done);
  };
  const hooked = Object.assign(limit, { hook });
  return 'rules' in http
    ? Object.assign(hooked, { rules: http.rules, identitiesOf: http.identitiesOf })
    : Object.assign(hooked, { limiter: http.limiter, resetKey: http.resetKey });
}
