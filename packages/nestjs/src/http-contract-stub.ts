/*
 * TEMPORARY STAND-IN — delete when merging.
 *
 * The framework-neutral HTTP layer (`createHttpLimiter`, `HttpRequestInfo`, `HttpVerdict`, ...)
 * is being built in @tollgate/core per HTTP_CONTRACT.md. Until it lands, this file provides
 * exactly the contract's exports, minimally, so the Nest adapter can be built and tested.
 * The adapter imports the contract names ONLY through this file: on merge, replace its whole
 * body with `export { createHttpLimiter, ... } from '@tollgate/core';` (or point the imports at
 * core) and delete it. Not implemented here: refunds (skipFailedRequests /
 * skipSuccessfulRequests are accepted and ignored), CIDR allow-list entries, IPv6 grouping.
 */
import { createLimiter, type Decision, type Limiter, type LimiterOptions, type RuleSpec } from '@tollgate/core';

export interface HttpRequestInfo {
  ip: string | undefined;
  method: string;
  path: string;
  headers: Readonly<Record<string, string | string[] | undefined>>;
  raw: unknown;
}

export type HttpRateLimitOptions = RuleSpec &
  LimiterOptions & {
    // biome-ignore lint/suspicious/noExplicitAny: the contract hands user callbacks the framework's own request
    key?: (req: any, info: HttpRequestInfo) => string | undefined | Promise<string | undefined>;
    // biome-ignore lint/suspicious/noExplicitAny: as above
    skip?: (req: any, info: HttpRequestInfo) => boolean | Promise<boolean>;
    allowList?: readonly string[];
    ipv6Subnet?: number | false;
    headers?: 'draft' | 'draft+legacy' | 'legacy' | false;
    responseType?: 'text' | 'json' | 'problem+json';
    // biome-ignore lint/suspicious/noExplicitAny: as above
    message?: string | object | ((req: any, decision: Decision) => string | object);
    statusCode?: number;
    skipFailedRequests?: boolean;
    skipSuccessfulRequests?: boolean;
  };

export interface HttpLimiter {
  readonly limiter: Limiter;
  check(info: HttpRequestInfo): Promise<HttpVerdict>;
}

export type HttpVerdict =
  | { action: 'skip' }
  | { action: 'pass'; decision: Decision; headers: [string, string][]; delayMs: number; settle(statusCode: number | undefined): void }
  | { action: 'reject'; decision: Decision; status: number; headers: [string, string][]; contentType: string; body: string };

const HTTP_FIELDS = [
  'key',
  'skip',
  'allowList',
  'ipv6Subnet',
  'headers',
  'responseType',
  'message',
  'statusCode',
  'skipFailedRequests',
  'skipSuccessfulRequests',
];

const seconds = (ms: number) => Math.ceil(ms / 1000);

function rateLimitHeaders(decision: Decision, style: HttpRateLimitOptions['headers']): [string, string][] {
  const headers: [string, string][] = [];
  if (style === 'draft' || style === 'draft+legacy') {
    const policies = decision.limits.map((l) => `"${l.name}";q=${l.policy.quota};w=${seconds(l.policy.windowMs)}`);
    const states = decision.limits.map((l) => `"${l.name}";r=${l.remaining};t=${seconds(l.resetAfterMs)}`);
    headers.push(['RateLimit-Policy', policies.join(', ')], ['RateLimit', states.join(', ')]);
  }
  if (style === 'legacy' || style === 'draft+legacy') {
    headers.push(
      ['X-RateLimit-Limit', String(decision.limit)],
      ['X-RateLimit-Remaining', String(decision.remaining)],
      ['X-RateLimit-Reset', String(seconds(decision.resetAfterMs))],
    );
  }
  return headers;
}

export function createHttpLimiter(options: HttpRateLimitOptions): HttpLimiter {
  const http = options as HttpRateLimitOptions & Record<string, unknown>;
  const rest = Object.fromEntries(Object.entries(options).filter(([field]) => !HTTP_FIELDS.includes(field)));
  const limiter = createLimiter(rest as RuleSpec & LimiterOptions);
  const style = http.headers ?? 'draft';
  const responseType = http.responseType ?? 'text';

  function body(req: unknown, decision: Decision): { contentType: string; body: string } {
    const custom = typeof http.message === 'function' ? http.message(req, decision) : http.message;
    if (responseType === 'text') {
      const text =
        typeof custom === 'string' ? custom : custom !== undefined ? JSON.stringify(custom) : 'Too many requests, please try again later.';
      return { contentType: 'text/plain; charset=utf-8', body: text };
    }
    const title = 'Too Many Requests';
    const fallback =
      responseType === 'json'
        ? { error: title, retryAfter: seconds(decision.retryAfterMs) }
        : { type: 'about:blank', title, status: http.statusCode ?? 429, detail: `Retry in ${seconds(decision.retryAfterMs)} s.` };
    const contentType = responseType === 'json' ? 'application/json; charset=utf-8' : 'application/problem+json';
    return { contentType, body: JSON.stringify(custom ?? fallback) };
  }

  return {
    limiter,
    async check(info) {
      if (info.ip !== undefined && http.allowList?.includes(info.ip)) return { action: 'skip' };
      if (http.skip && (await http.skip(info.raw, info))) return { action: 'skip' };
      const identity = (await http.key?.(info.raw, info)) ?? (info.ip ?? 'unknown').replace(/^::ffff:/, '');
      const decision = await limiter.consume(identity);
      const headers = style === false ? [] : rateLimitHeaders(decision, style);
      if (decision.allowed) {
        // Refunds are not part of the stand-in: settling changes nothing.
        return { action: 'pass', decision, headers, delayMs: decision.delayMs, settle: () => undefined };
      }
      if (Number.isFinite(decision.retryAfterMs)) headers.push(['Retry-After', String(seconds(decision.retryAfterMs))]);
      headers.push(['Cache-Control', 'no-store']);
      return { action: 'reject', decision, status: http.statusCode ?? 429, headers, ...body(info.raw, decision) };
    },
  };
}
