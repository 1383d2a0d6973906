import { type AdaptiveLimiter, createHttpAdaptiveLimiter, type HttpAdaptiveOptions } from '@tollgate/core';
import type { Context, MiddlewareHandler } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { proceed } from './response-end.js';

export type AdaptiveConcurrencyOptions = HttpAdaptiveOptions<Context>;

export type AdaptiveConcurrencyMiddleware = MiddlewareHandler & {
  /** The limiter underneath: its `snapshot()`, its events (`limit`, `sample`, `rejected`), `close()`. */
  readonly limiter: AdaptiveLimiter<Context>;
};

/**
 * Hono (4) middleware holding each request to a concurrency limit that follows measured latency: a
 * request takes a slot (or waits for one in the queue, when configured) and gives it back once its
 * response is over, its status telling how it went (on `@hono/node-server`: once the response was
 * sent or its connection closed; elsewhere: once the chain's response is known); a request finding
 * no slot is answered 503 (or 429) with `Retry-After`. `partition`, `skip` get the context.
 */
export function adaptiveConcurrency(options: AdaptiveConcurrencyOptions = {}): AdaptiveConcurrencyMiddleware {
  const http = createHttpAdaptiveLimiter(options);
  const middleware: MiddlewareHandler = async (c, next) => {
    const verdict = await http.admit(c);
    // No shaping delay: the slot is held while the rest of the chain runs.
    if (verdict.action === 'proceed') return proceed(c, next, 0, verdict.settle);
    const headers = Object.fromEntries([...verdict.headers, ['content-type', verdict.contentType]]);
    return c.body(verdict.body, verdict.status as ContentfulStatusCode, headers);
  };
  return Object.assign(middleware, { limiter: http.limiter });
}
