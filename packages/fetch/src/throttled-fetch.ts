import { type Cost, type Hold, TollgateError } from '@tollgate/core';
import { holdWithin, settledFromAnswer } from './held-call.js';
import { type ResolvedOptions, resolveOptions, type ThrottledFetchOptions } from './options.js';
import { SharedPause } from './shared-pause.js';
import { sleep } from './sleep.js';
import { PAUSING_STATUSES, readUpstreamLimits } from './upstream-headers.js';

export type ThrottledFetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/**
 * A `fetch` whose calls wait their turn: each waits out any pause of its key (host by default),
 * then `limiter.wait`s, then checks the pause again and goes out. The answer's rate-limit headers
 * pause every caller of the key, in every process sharing `store`, for as long as the upstream
 * says; a 429 or 503 to an idempotent request is sent again (up to `retry.limit` times) once the
 * pause is over, unless its `Retry-After` could not be followed.
 */
export function createThrottledFetch(options: ThrottledFetchOptions): ThrottledFetch {
  const resolved = resolveOptions(options);
  const pauses = new SharedPause(resolved.store, resolved.prefix, resolved.clock);
  const now = resolved.clock ?? Date.now;

  return async function throttledFetch(input, init) {
    const request = new Request(input, init);
    const key = resolved.key(request);
    const deadlineMs = now() + resolved.maxWaitMs;
    const budgetMs = () => deadlineMs - now();
    const retries = resolved.retryMethods.has(request.method) ? resolved.retryLimit : 0;
    const { callCost } = resolved;
    const estimate = callCost === undefined ? undefined : await callCost.estimate(request.clone());
    for (let attempt = 0; ; attempt++) {
      const hold = await waitForTurn(resolved, pauses, key, budgetMs, request.signal, estimate);
      let response: Response;
      try {
        response = await resolved.fetch(retries > attempt ? request.clone() : request);
      } catch (error) {
        await hold?.cancel();
        throw error;
      }
      const { pauseMs, retryAfterIgnored } = await learn(resolved, pauses, key, response);
      if (attempt >= retries || !PAUSING_STATUSES.has(response.status) || retryAfterIgnored) {
        return hold === undefined ? response : settledFromAnswer(hold, estimate!, response, callCost!.actual);
      }
      await hold?.cancel();
      const waitMs = pauseMs > 0 ? pauseMs : resolved.backoffMs * 2 ** attempt;
      // A wait past the caller's budget: the caller gets the upstream's answer instead.
      if (waitMs > budgetMs()) return response;
      resolved.events.retry?.({ key, attempt: attempt + 1, status: response.status, waitMs });
      await response.body?.cancel();
      if (pauseMs === 0) await sleep(waitMs, request.signal);
    }
  };
}

/**
 * Waits out the key's pause as known here, then the limiter (holding `estimate` when the call has
 * one), then asks whether the key is paused now: a pause learnt while the call slept in
 * `limiter.wait` (another caller's 429, in any process) holds it back too. A call held back that
 * way gives its hold back, waits the pause out and takes a new slot, so the calls let go when the
 * pause ends still keep the limiter's pace.
 */
async function waitForTurn(
  options: ResolvedOptions,
  pauses: SharedPause,
  key: string,
  budgetMs: () => number,
  signal: AbortSignal,
  estimate: Cost | undefined,
): Promise<Hold | undefined> {
  await sleepOutPause(key, pauses.knownMs(key), budgetMs(), signal);
  for (;;) {
    let hold: Hold | undefined;
    if (estimate === undefined) await options.limiter.wait(key, { maxWait: Math.max(0, budgetMs()), signal });
    else hold = await holdWithin(options.limiter, key, estimate, budgetMs, signal);
    const pausedMs = await pauses.remainingMs(key);
    if (pausedMs <= 0) return hold;
    await hold?.cancel();
    await sleepOutPause(key, pausedMs, budgetMs(), signal);
  }
}

async function sleepOutPause(key: string, pausedMs: number, budgetMs: number, signal: AbortSignal): Promise<void> {
  if (pausedMs <= 0) return;
  if (pausedMs > budgetMs) {
    throw new TollgateError('ERR_TOLLGATE_WAIT_TIMEOUT', `${key} is paused by its upstream for ${pausedMs} ms, beyond maxWait`, 'maxWait');
  }
  await sleep(pausedMs, signal);
}

interface Learnt {
  /** How long the key is now paused; 0 when the answer asked for no pause. */
  pauseMs: number;
  /** The answer's `Retry-After` was malformed, negative or beyond `maxPause`: it is not retried. */
  retryAfterIgnored: boolean;
}

/** Reads the answer's headers, reports what it ignored, pauses the key if asked. */
async function learn(options: ResolvedOptions, pauses: SharedPause, key: string, response: Response): Promise<Learnt> {
  const { events } = options;
  const limits = readUpstreamLimits(response.status, response.headers, Date.now(), options.maxPauseMs, options.headroom);
  for (const ignored of limits.ignored) events.ignoredHeader?.({ key, ...ignored });
  if (limits.policies.length > 0) events.policy?.({ key, policies: limits.policies });
  if (limits.budgets.length > 0) events.budget?.({ key, budgets: limits.budgets });
  const retryAfterIgnored = limits.ignored.some((ignored) => ignored.header === 'retry-after');
  if (limits.pauseMs <= 0) return { pauseMs: 0, retryAfterIgnored };
  await pauses.pause(key, limits.pauseMs);
  // Told once the pause is in the store: a call any process starts from then on waits it out.
  events.pause?.({ key, pauseMs: limits.pauseMs, header: limits.pauseFrom!, status: response.status });
  return { pauseMs: limits.pauseMs, retryAfterIgnored };
}
