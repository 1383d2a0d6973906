import { LONGEST_WAIT_MS } from './wait-options.js';

/** Why a sleep ended early on purpose: a slot may have freed up (a lease released in this process). */
export interface Waker {
  /** Resolves the sleep now instead of at its end. */
  wake(): void;
}

/**
 * Resolves after `ms` (or when woken), rejects with the signal's reason once it aborts.
 * `onWaker` receives the handle that ends the sleep early while it runs.
 */
export function sleep(ms: number, signal: AbortSignal | undefined, onWaker?: (waker: Waker | undefined) => void): Promise<void> {
  if (signal?.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', aborted);
      onWaker?.(undefined);
    };
    const aborted = () => {
      done();
      reject(signal!.reason);
    };
    // Beyond LONGEST_WAIT_MS a timer would fire at once: such a sleep ends there (the caller asks again).
    const timer = setTimeout(
      () => {
        done();
        resolve();
      },
      Math.min(ms, LONGEST_WAIT_MS),
    );
    signal?.addEventListener('abort', aborted, { once: true });
    onWaker?.({
      wake: () => {
        done();
        resolve();
      },
    });
  });
}
