import { TollgateError } from '../errors.js';

/** Raised when the store has not answered within the limiter's `timeout`. */
export class StoreTimeoutError extends TollgateError {
  constructor(timeoutMs: number) {
    super('ERR_TOLLGATE_STORE', `the store did not answer within ${timeoutMs} ms`);
  }
}

/**
 * Settles with `promise`, or rejects with a StoreTimeoutError after `timeoutMs`. A late
 * answer or failure of `promise` is absorbed: it can never become an unhandled rejection.
 */
export function withTimeout<T>(promise: Promise<T>, timeoutMs: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new StoreTimeoutError(timeoutMs)), timeoutMs);
    timer.unref?.();
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}
