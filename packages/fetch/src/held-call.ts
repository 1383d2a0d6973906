import { type Cost, type Hold, type Limiter, TollgateError } from '@tollgate/core';
import { sleep } from './sleep.js';
import type { TokenUsage } from './usage.js';
import { watchUsage } from './watch-usage.js';

/** What a call holds, and what its answer settles. */
export interface CallCost {
  estimate: (request: Request) => Cost | Promise<Cost>;
  actual: (usage: TokenUsage) => Cost;
}

/** The default `actualCost`: the answer's total tokens. */
export const totalTokens = (usage: TokenUsage): Cost => ({ tokens: usage.total });

/** Holds `estimate` of `key` on `limiter`, waiting out each refusal while `budgetMs()` allows. */
export async function holdWithin(
  limiter: Limiter,
  key: string,
  estimate: Cost,
  budgetMs: () => number,
  signal: AbortSignal,
): Promise<Hold> {
  for (;;) {
    const hold = await limiter.hold(key, { cost: estimate });
    if (hold.decision.allowed) return hold;
    const waitMs = hold.decision.retryAfterMs;
    if (!(waitMs <= budgetMs())) {
      throw new TollgateError('ERR_TOLLGATE_WAIT_TIMEOUT', `${key} has no room for this call's estimate within maxWait`, 'maxWait');
    }
    await sleep(Math.max(1, waitMs), signal);
  }
}

/**
 * The answer, its hold settled from it: an error answer (400 or more) gives the whole estimate
 * back; otherwise the usage it reports, once its body was read, is charged instead of the estimate
 * (an answer reporting none, or whose body was cancelled, stays charged at the estimate).
 */
export function settledFromAnswer(hold: Hold, estimate: Cost, response: Response, actual: CallCost['actual']): Response {
  if (response.status >= 400) {
    hold.cancel().catch(() => {});
    return response;
  }
  const { response: watched, usage } = watchUsage(response);
  usage.then((used) => hold.settle(used === undefined ? estimate : actual(used))).catch(() => {});
  return watched;
}
