import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AdaptiveLimiter } from '../adaptive/adaptive-limiter.js';
import { createHttpAdaptiveLimiter, type HttpAdaptiveOptions } from './adaptive-http.js';
import { settleWhenDone } from './node-response.js';

/** Connect-style middleware over Node's request and response, with the limiter underneath. */
export type AdaptiveNodeMiddleware<Req extends IncomingMessage> = ((
  req: Req,
  res: ServerResponse,
  next: (error?: unknown) => void,
) => Promise<void>) & {
  /** The limiter underneath: its `snapshot()`, its events (`limit`, `sample`, `rejected`), `close()`. */
  readonly limiter: AdaptiveLimiter<Req>;
};

/**
 * The adaptive concurrency middleware of every adapter whose requests are Node's own (Express, and
 * Nest on either platform): a request takes a slot and gives it back once its response is over;
 * one finding none is answered with the verdict's status, fields and body. Never rejects: an error
 * (a `partition` that throws) goes to `next`.
 */
export function adaptiveNodeMiddleware<Req extends IncomingMessage>(options: HttpAdaptiveOptions<Req>): AdaptiveNodeMiddleware<Req> {
  const http = createHttpAdaptiveLimiter(options);
  const middleware = async (req: Req, res: ServerResponse, next: (error?: unknown) => void): Promise<void> => {
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
