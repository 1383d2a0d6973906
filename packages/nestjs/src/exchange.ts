import type { ServerResponse } from 'node:http';
import {
  FIELD,
  type HttpRequestInfo,
  type HttpVerdict,
  headerText,
  mergeRateLimitHeaders,
  type RequestRateLimit,
  rateLimitMemberNames,
  settleWhenDone,
  withoutRateLimitMembers,
} from '@tollgate/core';

export type RejectVerdict = Extract<HttpVerdict, { action: 'reject' }>;
export type PassVerdict = Extract<HttpVerdict, { action: 'pass' }>;

/** One request as the guard sees it, whatever the transport. */
export interface RateLimitExchange {
  readonly info: HttpRequestInfo;
  /** The platform's response object (Express `Response`, Fastify `FastifyReply`), handed to a rule's `handler`. */
  readonly response?: unknown;
  /** Makes the decision visible to the handler: over HTTP, `req[name]` (`req.rateLimit`; the last rule's when several apply). */
  record?(decision: RequestRateLimit, name: string): void;
  /**
   * Puts the verdict's headers on the response (or wherever the transport carries them).
   * `rule` is the rule they come from: one checking again on the same response (GraphQL: every
   * field and alias it limits) replaces its earlier `RateLimit` members instead of adding more.
   */
  setHeaders(headers: readonly [string, string][], rule?: object): void;
  /**
   * Answers a rejected request (`rule` as for `setHeaders`). The guard throws
   * `RateLimitRejectedException` right after, to stop Nest's pipeline.
   */
  reject(verdict: RejectVerdict, rule?: object): void | Promise<void>;
  /**
   * Calls back exactly once: with the status code when the response has finished, undefined when
   * the connection closed first, and the platform's response (for `requestWasSuccessful`).
   */
  onDone(callback: (statusCode: number | undefined, response?: unknown) => void): void;
}

interface FastifyReplyLike {
  raw: ServerResponse;
  code(status: number): unknown;
  header(name: string, value: string): unknown;
  getHeader(name: string): number | string | string[] | undefined;
  send(body: string): unknown;
}

// biome-ignore lint/suspicious/noExplicitAny: Express, Fastify and plain Node requests share no type
type AnyRequest = any;

/** A request the guard or interceptor has checked: `rateLimit` is the decision of the last rule that did not skip it. */
export interface RateLimitedRequest {
  rateLimit?: RequestRateLimit;
}

const isFastifyReply = (res: unknown): res is FastifyReplyLike =>
  typeof (res as FastifyReplyLike).raw === 'object' && typeof (res as FastifyReplyLike).code === 'function';

/** Folds repeated header names into one comma-separated field (equivalent for list-valued fields). */
function grouped(headers: readonly [string, string][]): Map<string, string> {
  const byName = new Map<string, string>();
  for (const [name, value] of headers) {
    const seen = byName.get(name);
    byName.set(name, seen === undefined ? value : `${seen}, ${value}`);
  }
  return byName;
}

/** Client address, method, path and headers of an Express, Fastify or plain Node request. */
export function requestInfo(req: AnyRequest): HttpRequestInfo {
  const url: string = req.originalUrl ?? req.url ?? '/';
  const query = url.indexOf('?');
  return {
    ip: req.ip ?? req.socket?.remoteAddress,
    method: req.method ?? 'GET',
    path: query === -1 ? url : url.slice(0, query),
    headers: req.headers ?? {},
    raw: req,
  };
}

/** Per response, the `RateLimit` member names each rule last put there. */
const membersByRule = new WeakMap<object, Map<object, ReadonlySet<string>>>();

const isRateLimitList = (name: string) => name === FIELD.policy || name === FIELD.rateLimit;

const ended = (response: ServerResponse) =>
  new Promise<void>((resolve) => {
    settleWhenDone(response, () => resolve());
  });

/**
 * The exchange of an HTTP request on Express (or plain Node) or Fastify. A rejection is written
 * through the platform's own response object — so headers other middleware or Fastify hooks put
 * there (CORS, security headers) are kept — and the guard waits until it is sent.
 * With `writeRejection: false` (GraphQL) only the headers are set; the exception carries the body.
 */
export function httpExchange(req: AnyRequest, res: unknown, { writeRejection = true } = {}): RateLimitExchange {
  const fastify = isFastifyReply(res) ? res : undefined;
  const response = (fastify?.raw ?? res) as ServerResponse;
  const setHeaders = (headers: readonly [string, string][], rule?: object) => {
    if (response.headersSent) return;
    const byRule = membersByRule.get(response) ?? new Map<object, ReadonlySet<string>>();
    const earlier = rule === undefined ? undefined : byRule.get(rule);
    const current = (name: string) => {
      const text = headerText(fastify ? fastify.getHeader(name) : response.getHeader(name));
      return earlier !== undefined && isRateLimitList(name) ? withoutRateLimitMembers(text, earlier) : text;
    };
    // Several rules of a route (or an app-level middleware) each add their RateLimit members.
    const merged = mergeRateLimitHeaders([...grouped(headers)], current);
    const before = new Set(rateLimitMemberNames(current(FIELD.policy)));
    for (const [name, value] of merged) {
      if (fastify) fastify.header(name, value);
      else response.setHeader(name, value);
    }
    if (rule === undefined) return;
    const policy = merged.find(([name]) => name === FIELD.policy)?.[1];
    byRule.set(rule, new Set(rateLimitMemberNames(policy).filter((name) => !before.has(name))));
    membersByRule.set(response, byRule);
  };
  return {
    info: requestInfo(req),
    response: res,
    record(decision, name) {
      (req as Record<string, unknown>)[name] = decision;
    },
    setHeaders,
    reject(verdict, rule) {
      setHeaders(verdict.headers, rule);
      if (!writeRejection || response.headersSent) return;
      if (fastify) {
        fastify.code(verdict.status);
        fastify.header('content-type', verdict.contentType);
        fastify.send(verdict.body);
      } else {
        response.statusCode = verdict.status;
        response.setHeader('content-type', verdict.contentType);
        response.setHeader('content-length', Buffer.byteLength(verdict.body));
        response.end(verdict.body);
      }
      return ended(response);
    },
    onDone: (callback) => settleWhenDone(response, callback, res),
  };
}
