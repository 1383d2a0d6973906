import type { ServerResponse } from 'node:http';

/** The `settle` of a verdict with nothing to do after the response: no listener is needed for it. */
export const NOTHING_TO_SETTLE = (_statusCode: number | undefined): void => {};

/**
 * Calls `settle` once the response is over: with its status when it was sent in full,
 * with undefined when the connection closed first (including before this was called), and
 * `response` (default `res`): what `requestWasSuccessful` is handed beside the request.
 */
export function settleWhenDone(
  res: ServerResponse,
  settle: (statusCode: number | undefined, response?: unknown) => void,
  response: unknown = res,
): void {
  if (settle === NOTHING_TO_SETTLE) return;
  if (res.closed) {
    settle(res.writableFinished ? res.statusCode : undefined, response);
    return;
  }
  res.once('close', () => settle(res.writableFinished ? res.statusCode : undefined, response));
}

/**
 * Holds a shaped request for `delayMs`; resolves true when it may go on, false when the
 * client went away in the meantime (the timer is then dropped at once).
 */
export function holdUnlessClosed(res: ServerResponse, delayMs: number): Promise<boolean> {
  if (res.closed) return Promise.resolve(false);
  return new Promise((resolve) => {
    const onClose = () => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      res.off('close', onClose);
      resolve(true);
    }, delayMs);
    res.once('close', onClose);
  });
}
