import type { IncomingMessage, ServerResponse } from 'node:http';
import { type AdaptiveLimiter, createHttpAdaptiveLimiter, type HttpAdaptiveOptions, settleWhenDone } from '@tollgate/core';

/** `partition` and `skip` get the Node request: Express's `req` on the Express platform, the raw request on Fastify. */
export type AdaptiveConcurrencyOptions = HttpAdaptiveOptions<IncomingMessage>;

export type AdaptiveConcurrencyMiddleware = ((
  req: IncomingMessage,
  res: ServerResponse,
  next: (error?: unknown) => void,
) => Promise<void>) & {
  /** The limiter underneath: its `snapshot()`, its events (`limit`, `sample`, `rejected`), `close()`. */
  readonly limiter: AdaptiveLimiter<IncomingMessage>;
};

/**
 * Nest middleware (`app.use(...)` or `consumer.apply(...)`, Express and Fastify platforms) holding
 * each request to a concurrency limit that follows measured latency: a request takes a slot (or
 * waits for one in the queue, when configured) and gives it back once its response is over, a
 * 5xx counting as a loss; a request finding no slot is answered 503 (or 429) with `Retry-After`
 * before any guard or handler runs.
 */
export function adaptiveConcurrency(options: AdaptiveConcurrencyOptions = {}): AdaptiveConcurrencyMiddleware {
  const http = createHttpAdaptiveLimiter(options);
  const middleware = async (req: IncomingMessage, res: ServerResponse, next: (error?: unknown) => void): Promise<void> => {
    try {
      const verdict = await http.admit(req);
      if (verdict.action === 'proceed') {
        settleWhenDone(res, verdict.settle);
        next();
        return;
      }
      for (const [name, value] of verdict.headers) res.setHeader(name, value);
      res.statusCode = verdict.status;
      res.setHeader('content-type', verdict.contentType);
      res.end(verdict.body);
    } catch (error) {
      next(error);
    }
  };
  return Object.assign(middleware, { limiter: http.limiter });
}
