import type { Decision, Lease } from '../decision.js';
import type { BoundLimit, Clock } from '../stores/store.js';
import { KeyTurns } from './key-turns.js';
import { ReservingLimits } from './reserving-limits.js';
import { sleep, type Waker } from './sleep.js';
import { LONGEST_WAIT_MS, type ParsedWaitOptions, parseWaitOptions, type WaitOptions, waitTimeout } from './wait-options.js';

/** What `createWaiter` needs from its limiter. */
export interface WaitHooks {
  limits: readonly BoundLimit[];
  now: Clock;
  /** A consume of `cost` checked against `limits` (the rule's, or the reserving variant). */
  consume(key: string, cost: number, limits: readonly BoundLimit[]): Promise<Decision>;
  refund(key: string, cost: number): Promise<unknown>;
  release(lease: Lease): Promise<void>;
}

export interface Waiter {
  wait(key: string, options?: WaitOptions): Promise<Decision>;
  /** A lease of `key` was released in this process: the waiter at the head of its line asks again now. */
  released(key: string): void;
}

/**
 * While a concurrency slot is held elsewhere, how often the head waiter of a key asks again:
 * a release in another process is not announced, and the oldest lease's expiry may be far off.
 */
export const LEASE_POLL_MS = 100;

/**
 * `limiter.wait`. Rules whose every limit can reserve (gcra, token-bucket, leaky-bucket shaping)
 * are asked once: the store hands the waiter its slot atomically, as a `delayMs` of at most
 * `maxWait`, and the waiter sleeps until then. Other rules retry: the waiters of a key line up
 * in this process and only the first asks the store, again when the denial's `retryAfterMs`
 * has passed (at most every LEASE_POLL_MS for a rule holding leases, sooner when a lease of the
 * key is released here).
 */
export function createWaiter(hooks: WaitHooks): Waiter {
  const reserving = new ReservingLimits(hooks.limits);
  const holdsLeases = hooks.limits.some((limit) => limit.algorithm.release !== undefined);
  const turns = new KeyTurns();
  const wakers = new Map<string, Waker>();

  async function wait(key: string, options?: WaitOptions): Promise<Decision> {
    const parsed = parseWaitOptions(options);
    parsed.signal?.throwIfAborted();
    const deadlineMs = hooks.now() + parsed.maxWaitMs;
    if (reserving.all) return reserve(key, parsed, deadlineMs);
    const passOn = await turns.enter(key, hooks.now, deadlineMs, parsed.signal);
    try {
      return await retry(key, parsed, deadlineMs);
    } finally {
      passOn();
    }
  }

  async function reserve(key: string, options: ParsedWaitOptions, deadlineMs: number): Promise<Decision> {
    for (;;) {
      const budgetMs = Math.min(Math.max(0, deadlineMs - hooks.now()), LONGEST_WAIT_MS);
      const decision = await hooks.consume(key, options.cost, reserving.within(budgetMs));
      if (decision.allowed) return hold(key, decision, options);
      // The store found no slot within the budget; only a policy answer (store down) is worth waiting out.
      if (decision.source === 'store' || decision.source === 'cache' || !(decision.retryAfterMs <= budgetMs)) {
        throw waitTimeout(key, `no slot for cost ${options.cost} within ${budgetMs} ms`);
      }
      await sleep(decision.retryAfterMs, options.signal);
    }
  }

  async function retry(key: string, options: ParsedWaitOptions, deadlineMs: number): Promise<Decision> {
    for (;;) {
      const decision = await hooks.consume(key, options.cost, hooks.limits);
      if (decision.allowed) return hold(key, decision, options);
      const budgetMs = deadlineMs - hooks.now();
      let pauseMs = decision.retryAfterMs;
      if (pauseMs === Number.POSITIVE_INFINITY) throw waitTimeout(key, `cost ${options.cost} can never pass`);
      if (holdsLeases) {
        // A lease may be released any moment: ask again soon, until the budget is spent.
        if (budgetMs <= 0) throw waitTimeout(key, 'no slot was released in time');
        pauseMs = Math.min(pauseMs, LEASE_POLL_MS, budgetMs);
      } else if (pauseMs > budgetMs) {
        throw waitTimeout(key, `the next try is ${pauseMs} ms away`);
      }
      await sleep(pauseMs, options.signal, (waker) => (waker ? wakers.set(key, waker) : wakers.delete(key)));
    }
  }

  /** Sleeps out an admitted decision's delay; an abort meanwhile gives back what was taken. */
  async function hold(key: string, decision: Decision, options: ParsedWaitOptions): Promise<Decision> {
    if (decision.delayMs <= 0) return decision;
    try {
      await sleep(decision.delayMs, options.signal);
    } catch (reason) {
      await giveBack(key, decision, options.cost);
      throw reason;
    }
    return { ...decision, delayMs: 0 };
  }

  async function giveBack(key: string, decision: Decision, cost: number): Promise<void> {
    if (decision.source !== 'store') return;
    await Promise.all([hooks.refund(key, cost), decision.lease ? hooks.release(decision.lease) : undefined]);
  }

  return {
    wait,
    released: (key) => wakers.get(key)?.wake(),
  };
}
