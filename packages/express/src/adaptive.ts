import { type AdaptiveLimiter, adaptiveNodeMiddleware, type HttpAdaptiveOptions } from '@tollgate/core';
import type { Request, RequestHandler } from 'express';

export type AdaptiveConcurrencyOptions = HttpAdaptiveOptions<Request>;

export type AdaptiveConcurrencyMiddleware = RequestHandler & {
  /** The limiter underneath: its `snapshot()`, its events (`limit`, `sample`, `rejected`), `close()`. */
  readonly limiter: AdaptiveLimiter<Request>;
};

/**
 * Express (4 and 5) middleware holding each request to a concurrency limit that follows measured
 * latency: a request takes a slot (or waits for one in the queue, when configured) and gives it
 * back once its response is over, its status telling how it went; a request finding no slot is
 * answered 503 (or 429) with `Retry-After`. `await middleware(req, res, next)` never rejects.
 */
export function adaptiveConcurrency(options: AdaptiveConcurrencyOptions = {}): AdaptiveConcurrencyMiddleware {
  return adaptiveNodeMiddleware(options);
}
