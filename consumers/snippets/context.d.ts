// What a README snippet may use without declaring it: the things of the app around it (the
// request being handled, the app, a Redis client, a logger). Anything else a snippet names
// must be imported or declared in the snippet itself, as a user copying it would have to.
import type { Limiter, Store } from '@tollgate/core';
import type { Express, NextFunction, Request, RequestHandler, Response } from 'express';
import type { Redis } from 'ioredis';

declare global {
  /** The Express app. */
  const app: Express;
  /** The request being handled, its response and the next middleware. */
  const req: Request;
  const res: Response;
  const next: NextFunction;
  /** A route handler of the app. */
  const search: RequestHandler;
  /** The app's ioredis client. */
  const client: Redis;
  /** The authenticated user's id, when there is one (with Passport: `req.user?.id`). */
  const userId: string | undefined;
  /** The app's store (a `RedisStore` or `MemoryStore`). */
  const store: Store;
  /** A limiter built elsewhere in the app. */
  const someLimiter: Limiter;
  /** A pino-style logger. */
  const log: { info(object: object, message?: string): void; error(error: unknown, message?: string): void };
}
