import { vi } from 'vitest';
import type { Store, StoreOperation, StoreResult } from '../../src/index.js';

/**
 * A store that counts its calls and knows which are in flight, so a test on fake timers can
 * let every store answer arrive (real I/O for Redis) before it moves time on.
 */
export class DrivenStore implements Store {
  calls = 0;
  private readonly inFlight = new Set<Promise<unknown>>();

  constructor(private readonly inner: Store) {}

  execute(operation: StoreOperation): Promise<StoreResult> {
    this.calls++;
    const answer = this.inner.execute(operation);
    const tracked = answer.finally(() => this.inFlight.delete(tracked));
    this.inFlight.add(tracked);
    return answer;
  }

  /** Until no store call is in flight and the code they woke has run. */
  async settle(): Promise<void> {
    do {
      await Promise.allSettled([...this.inFlight]);
      await vi.advanceTimersByTimeAsync(0);
    } while (this.inFlight.size > 0);
  }

  /** Moves fake time from timer to timer, letting the store answer in between, until `done` settles. */
  async drive(done: Promise<unknown>): Promise<void> {
    let settled = false;
    void done.then(
      () => (settled = true),
      () => (settled = true),
    );
    await this.settle();
    while (!settled) {
      await vi.advanceTimersToNextTimerAsync();
      await this.settle();
    }
  }
}
