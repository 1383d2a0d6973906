import type { RuleSpec, Store } from '../../src/index.js';
import { virtualLimiter } from './virtual-limiter.js';

/**
 * Guava's `RateLimiterTest.FakeStopwatch`, for a Tollgate limiter: `acquire` behaves like
 * `RateLimiter.acquire` for a client that, when denied, sleeps `retryAfterMs` and retries, and
 * that sleeps an admitted request's `delayMs` (reserve mode). Events read as Guava's:
 * `R1.38` is the time the limiter made the caller wait, `U0.50` a sleep of the test's own.
 */
export function guavaStopwatch(store: Store, rule: RuleSpec) {
  const clock = virtualLimiter(store, rule);
  let events: string[] = [];
  const seconds = (ms: number) => (ms / 1000).toFixed(2);
  return {
    limiter: clock.limiter,
    /** Waits as told until `permits` are granted; returns the wait in ms. */
    async acquire(permits = 1): Promise<number> {
      let waitedMs = 0;
      for (;;) {
        const decision = await clock.limiter.consume('user-1', { cost: permits });
        if (decision.allowed) {
          clock.advance(decision.delayMs);
          waitedMs += decision.delayMs;
          break;
        }
        if (decision.retryAfterMs === Number.POSITIVE_INFINITY) throw new Error(`${permits} permits can never be granted`);
        clock.advance(decision.retryAfterMs);
        waitedMs += decision.retryAfterMs;
      }
      events.push(`R${seconds(waitedMs)}`);
      return waitedMs;
    },
    async tryAcquire(permits = 1): Promise<boolean> {
      return (await clock.limiter.consume('user-1', { cost: permits })).allowed;
    },
    sleepMillis(ms: number): void {
      clock.advance(ms);
      events.push(`U${seconds(ms)}`);
    },
    /** Like Guava's `readEventsAndClear`, as one comma-separated string. */
    readEventsAndClear(): string {
      const read = events.join(', ');
      events = [];
      return read;
    },
  };
}
