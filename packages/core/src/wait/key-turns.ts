import { LONGEST_WAIT_MS, waitTimeout } from './wait-options.js';

interface Queued {
  admit(): void;
}

/**
 * One turn at a time per key: the waiters of a key in this process line up, and only the
 * first of them asks the store. Without it, every waiter of a retrying algorithm would wake
 * at the same retry time and call the store, one winning and the rest calling again.
 */
export class KeyTurns {
  private readonly queues = new Map<string, Queued[]>();

  /**
   * Resolves, with the function that passes the turn on, once it is this caller's turn; rejects
   * when `deadlineMs` (epoch, on `now`) passes first or `signal` aborts.
   */
  enter(key: string, now: () => number, deadlineMs: number, signal: AbortSignal | undefined): Promise<() => void> {
    const queue = this.queues.get(key);
    if (queue === undefined) {
      this.queues.set(key, []);
      return Promise.resolve(() => this.passOn(key));
    }
    return new Promise((resolve, reject) => {
      const leaveQueue = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', aborted);
        const at = queue.indexOf(entry);
        if (at >= 0) queue.splice(at, 1);
      };
      const aborted = () => {
        leaveQueue();
        reject(signal!.reason);
      };
      const entry: Queued = {
        admit: () => {
          leaveQueue();
          resolve(() => this.passOn(key));
        },
      };
      const waitMs = deadlineMs - now();
      const timer =
        // A deadline beyond what a timer can hold (24.8 days) is as good as none.
        waitMs >= LONGEST_WAIT_MS
          ? undefined
          : setTimeout(
              () => {
                leaveQueue();
                reject(waitTimeout(key, 'its turn did not come'));
              },
              Math.max(0, waitMs),
            );
      signal?.addEventListener('abort', aborted, { once: true });
      queue.push(entry);
    });
  }

  private passOn(key: string): void {
    const queue = this.queues.get(key);
    const next = queue?.[0];
    if (next === undefined) this.queues.delete(key);
    else next.admit();
  }
}
