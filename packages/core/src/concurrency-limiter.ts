import type { Decision, Lease } from './decision.js';
import { invalidSpec } from './errors.js';
import { createLimiter } from './limiter.js';
import type { LimiterOptions } from './limiter-types.js';
import type { ConcurrencySpec } from './spec.js';
import type { BoundLimit } from './stores/store.js';
import type { WaitOptions } from './wait/wait-options.js';

export type CreateConcurrencyLimiterOptions = Omit<ConcurrencySpec, 'algorithm'> & LimiterOptions;

export interface ConcurrencyLimiter {
  /** The limit, resolved. */
  readonly limits: readonly BoundLimit[];
  /** Takes a slot for `key` if one is free (`decision.lease`); when none is, `retryAfterMs` is when the oldest lease expires. */
  acquire(key: string): Promise<Decision>;
  /**
   * Waits for a slot (`decision.lease`), at most `maxWait`: woken at once by a release in this
   * process, asking again every 100 ms while the slots are held elsewhere.
   */
  wait(key: string, options?: Omit<WaitOptions, 'cost'>): Promise<Decision>;
  /** Frees the lease's slot. Releasing twice, or after the lease expired, frees nothing more; `undefined` (no lease taken) frees nothing. */
  release(lease: Lease | undefined): Promise<void>;
  /** The decision an `acquire` would get now; takes nothing. */
  peek(key: string): Promise<Decision>;
  /** Frees every slot of `key`. */
  reset(key: string): Promise<Decision>;
}

/**
 * A semaphore per identity (Stripe's concurrent-requests limiter): at most `limit` requests
 * in flight, each lease freed by `release` or, if its holder never calls it (a crashed
 * process), after `leaseTtl`. The same as `createLimiter({ algorithm: 'concurrency', ... })`.
 */
export function createConcurrencyLimiter(options: CreateConcurrencyLimiterOptions): ConcurrencyLimiter {
  if (typeof options !== 'object' || options === null) throw invalidSpec('spec', 'must be an object', options);
  for (const field of ['algorithm', 'limits'] as const) {
    const value = (options as unknown as Record<string, unknown>)[field];
    if (value !== undefined) throw invalidSpec(`spec.${field}`, 'is not an option of createConcurrencyLimiter', value);
  }
  const limiter = createLimiter({ ...options, algorithm: 'concurrency' });
  return {
    limits: limiter.limits,
    acquire: (key) => limiter.consume(key),
    wait: (key, options) => limiter.wait(key, options),
    release: (lease) => limiter.release(lease),
    peek: (key) => limiter.peek(key),
    reset: (key) => limiter.reset(key),
  };
}
