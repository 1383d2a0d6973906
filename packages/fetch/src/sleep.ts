/** The longest delay a timer holds (about 24.8 days); a longer one would fire at once. */
const LONGEST_TIMER_MS = 2 ** 31 - 1;

/** Resolves after `ms` (at most LONGEST_TIMER_MS); rejects with the signal's reason once it aborts. */
export function sleep(ms: number, signal: AbortSignal | null | undefined): Promise<void> {
  if (signal?.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const aborted = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(
      () => {
        signal?.removeEventListener('abort', aborted);
        resolve();
      },
      Math.min(ms, LONGEST_TIMER_MS),
    );
    signal?.addEventListener('abort', aborted, { once: true });
  });
}
