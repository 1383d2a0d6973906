import type { IncomingMessage } from 'node:http';
import { type AdaptiveNodeMiddleware, adaptiveNodeMiddleware, type HttpAdaptiveOptions } from '@tollgate/core';

/** `partition` and `skip` get the Node request: Express's `req` on the Express platform, the raw request on Fastify. */
export type AdaptiveConcurrencyOptions = HttpAdaptiveOptions<IncomingMessage>;

export type AdaptiveConcurrencyMiddleware = AdaptiveNodeMiddleware<IncomingMessage>;

/**
 * Nest middleware (`app.use(...)` or `consumer.apply(...)`, Express and Fastify platforms) holding
 * each request to a concurrency limit that follows measured latency: a request takes a slot (or
 * waits for one in the queue, when configured) and gives it back once its response is over, a
 * 5xx counting as a loss; a request finding no slot is answered 503 (or 429) with `Retry-After`
 * before any guard or handler runs.
 */
export function adaptiveConcurrency(options: AdaptiveConcurrencyOptions = {}): AdaptiveConcurrencyMiddleware {
  return adaptiveNodeMiddleware(options);
}
