// The setups of the real overload experiment: each one an Express app in front of the same pool.
import type { AdaptiveLimiter, AdaptiveLimiterOptions } from '@tollgate/core';
import { adaptiveConcurrency } from '@tollgate/express';
import type { Request, RequestHandler } from 'express';
import { eventLoopShedding } from './loop-shedding.js';

export const SLOTS = 10;
export const SERVICE_MS = 200;
export const CAPACITY = (SLOTS * 1000) / SERVICE_MS;
export const PRIORITY_HEADER = 'x-priority';

export interface Guard {
  middleware: RequestHandler | undefined;
  limiter: AdaptiveLimiter<Request> | undefined;
  close(): void;
}

const adaptive = (options: AdaptiveLimiterOptions<Request>): Guard => {
  const middleware = adaptiveConcurrency(options);
  return { middleware, limiter: middleware.limiter, close: () => middleware.limiter.close() };
};

const priorities = {
  partitions: { critical: 0.8, batch: 0.2 },
  partition: (req: Request) => req.get(PRIORITY_HEADER),
};

/** Setups by name, in the order the experiment runs them. */
export const SETUPS: Record<string, () => Guard> = {
  'no limiter': () => ({ middleware: undefined, limiter: undefined, close: () => {} }),
  // The pool's slots plus two waiting: the pool never idles for want of a request at hand.
  [`fixed ${SLOTS + 2} (tuned)`]: () => adaptive({ limit: SLOTS + 2 }),
  'fixed 100 (too high)': () => adaptive({ limit: 100 }),
  'event-loop shedding': () => {
    const shedding = eventLoopShedding({ maxEventLoopDelayMs: 100 });
    return { middleware: shedding.middleware, limiter: undefined, close: shedding.close };
  },
  // Each algorithm with its defaults, then with what the defaults lack for this pool.
  gradient2: () => adaptive({ limit: 'gradient2' }),
  'gradient2 (minLimit 1)': () => adaptive({ limit: { algorithm: 'gradient2', minLimit: 1 } }),
  aimd: () => adaptive({ limit: 'aimd' }),
  'aimd (minLimit 1, timeout 300 ms)': () => adaptive({ limit: { algorithm: 'aimd', minLimit: 1, timeoutMs: 300 } }),
  vegas: () => adaptive({ limit: 'vegas' }),
  // The limit's shares alone: critical is refused only once its own in-flight reaches its share of a full limit.
  'vegas + priorities': () => adaptive({ ...priorities }),
  // A short queue, served highest priority first and making room for critical by pushing batch out.
  'vegas + priorities + queue 50 ms': () => adaptive({ ...priorities, queue: { maxWaitMs: 50, maxSize: 20, order: 'lifo' } }),
};
