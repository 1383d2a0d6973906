import { holdUnlessClosed, settleWhenDone } from '@tollgate/core';
import type { Context } from 'hono';
import { nodeResponseOf } from './node-bindings.js';

type Settle = (statusCode: number | undefined, response?: unknown) => void;

/** Resolves true after `delayMs`, or false as soon as `signal` aborts (the timer is then dropped). */
function holdUnlessAborted(signal: AbortSignal, delayMs: number): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve(true);
    }, delayMs);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** What a request whose client went away while it was held answers: nobody reads it. */
const clientGone = () => new Response(null, { status: 499 });

/**
 * Holds an admitted request `delayMs` (shaping), runs the rest of the chain, and settles the
 * verdict once the response is over: on `@hono/node-server` when it was sent in full or its
 * connection closed first (a streamed body counts to its end), elsewhere once the chain's response
 * is known (no status when the request's signal aborted first).
 */
export function proceed(c: Context, next: () => Promise<void>, delayMs: number, settle: Settle): Promise<Response | void> {
  const res = nodeResponseOf(c);
  if (res === undefined) return proceedElsewhere(c, next, delayMs, settle);
  settleWhenDone(res, settle, c);
  if (delayMs <= 0) return next();
  return holdUnlessClosed(res, delayMs).then<Response | void>((open) => (open ? next() : clientGone()));
}

/** Off `@hono/node-server`: the verdict settles once the chain's response is known. */
async function proceedElsewhere(c: Context, next: () => Promise<void>, delayMs: number, settle: Settle): Promise<Response | undefined> {
  const { signal } = c.req.raw;
  if (delayMs > 0 && !(await holdUnlessAborted(signal, delayMs))) {
    settle(undefined, c);
    return clientGone();
  }
  let status: number | undefined;
  try {
    await next();
    status = signal.aborted ? undefined : c.res.status;
  } finally {
    settle(status, c);
  }
  return;
}
