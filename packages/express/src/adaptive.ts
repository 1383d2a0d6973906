import { type AdaptiveLimiter, createHttpAdaptiveLimiter, type HttpAdaptiveOptions, settleWhenDone } from '@tollgate/core';
import type { NextFunction, Request, RequestHandler, Response } from 'express';

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
  const http = createHttpAdaptiveLimiter(options);
  const middleware = async (req: Request, res: Response, next: NextFunction): Promise<void> => {
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
