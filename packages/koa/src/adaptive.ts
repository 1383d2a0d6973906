import { type AdaptiveLimiter, createHttpAdaptiveLimiter, type HttpAdaptiveOptions, settleWhenDone } from '@tollgate/core';
import type { Context, Middleware } from 'koa';

export type AdaptiveConcurrencyOptions = HttpAdaptiveOptions<Context>;

export type AdaptiveConcurrencyMiddleware = Middleware & {
  /** The limiter underneath: its `snapshot()`, its events (`limit`, `sample`, `rejected`), `close()`. */
  readonly limiter: AdaptiveLimiter<Context>;
};

/**
 * Koa middleware holding each request to a concurrency limit that follows measured latency: a
 * request takes a slot (or waits for one in the queue, when configured) and gives it back once its
 * response is over, its status telling how it went; a request finding no slot is answered 503 (or
 * 429) with `Retry-After`. `partition`, `skip` get the context.
 */
export function adaptiveConcurrency(options: AdaptiveConcurrencyOptions = {}): AdaptiveConcurrencyMiddleware {
  const http = createHttpAdaptiveLimiter(options);
  const middleware: Middleware = async (ctx, next) => {
    const verdict = await http.admit(ctx as Context);
    if (verdict.action === 'reject') {
      for (const [name, value] of verdict.headers) ctx.set(name, value);
      ctx.status = verdict.status;
      ctx.type = verdict.contentType;
      ctx.body = verdict.body;
      return;
    }
    // Koa sends the response after the middleware returns: the slot is given back when it is over.
    settleWhenDone(ctx.res, verdict.settle);
    await next();
  };
  return Object.assign(middleware, { limiter: http.limiter });
}
