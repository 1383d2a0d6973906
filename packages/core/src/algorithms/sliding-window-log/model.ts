import { invalidSpec } from '../../errors.js';
import { slidingWindowLogLua } from '../../lua/sources.generated.js';
import { LIMIT_PER_WINDOW, LIMIT_PER_WINDOW_FIELDS, type LimitPerWindow, limitPerWindow } from '../fields.js';
import { leftAfter, nothingToRefund } from '../refund.js';
import type { Algorithm, Charge } from '../types.js';

export type SlidingWindowLogParams = LimitPerWindow;

/** One admitted unit: when, and its member name in the Redis sorted set. */
export type LogEntry = readonly [atMs: number, member: string];

/** The same data as the Redis sorted set, in its order: by time, then by member. */
export type SlidingWindowLogState = readonly LogEntry[];

/** One sorted-set member per unit: a larger limit would let one request write millions of them. */
const MAX_LOG_LIMIT = 100_000;

/**
 * Sliding window log (the Redis sorted-set log): one entry per admitted unit; a request passes when
 * the entries of the last `window` plus its cost stay within `limit`. Exact, and the
 * state never holds more than `limit` entries; denied requests are not recorded.
 */
export const slidingWindowLog: Algorithm<
  SlidingWindowLogParams,
  SlidingWindowLogState,
  typeof LIMIT_PER_WINDOW_FIELDS,
  'sliding-window-log'
> = {
  name: 'sliding-window-log',
  lua: slidingWindowLogLua,
  fields: LIMIT_PER_WINDOW_FIELDS,
  redisSortedSet: true,
  denialHoldsUntilRetry: true,
  needsToken: true,

  parse(spec, at) {
    const params = limitPerWindow(spec, at);
    if (params.limit > MAX_LOG_LIMIT) {
      throw invalidSpec(
        at('limit'),
        `is too high for a log of one entry per unit (at most ${MAX_LOG_LIMIT}; use sliding-window-counter)`,
        params.limit,
      );
    }
    return params;
  },

  ...LIMIT_PER_WINDOW,

  step(entries = [], nowMs, { limit, windowMs }, cost, token) {
    const first = firstLive(entries, nowMs - windowMs);
    const count = entries.length - first;
    const newestMs = count > 0 ? entries[entries.length - 1]![0] : nowMs;
    if (count + cost > limit) {
      // Enough of the oldest live entries must slide out for `cost` to fit.
      const retryAfterMs = cost > limit ? Infinity : entries[first + count + cost - limit - 1]![0] + windowMs - nowMs;
      const resetAfterMs = count > 0 ? newestMs + windowMs - nowMs : 0;
      return { allowed: false, remaining: Math.max(0, limit - count), resetAfterMs, retryAfterMs, delayMs: 0, next: undefined, ttlMs: 0 };
    }
    const next = entries.slice(first);
    for (let i = 0; i < cost; i++) insertSorted(next, [nowMs, memberName(token, i)]);
    const resetAfterMs = Math.max(newestMs, nowMs) + windowMs - nowMs;
    return { allowed: true, remaining: limit - count - cost, resetAfterMs, retryAfterMs: 0, delayMs: 0, next, ttlMs: resetAfterMs };
  },

  /**
   * Removes the `cost` newest live entries; with a charge, only entries the charge added (its
   * last `cost` members) that have not slid out.
   */
  refund(entries, nowMs, params, cost, charge) {
    const first = entries === undefined ? 0 : firstLive(entries, nowMs - params.windowMs);
    if (entries === undefined || first === entries.length) return nothingToRefund(slidingWindowLog, entries, nowMs, params);
    let next: LogEntry[];
    if (charge === undefined) next = entries.slice(first, Math.max(first, entries.length - cost));
    else {
      const own = chargedMembers(charge, cost);
      next = entries.slice(first).filter(([, member]) => !own.has(member));
      if (next.length === entries.length - first) return nothingToRefund(slidingWindowLog, entries, nowMs, params);
    }
    const ttlMs = next.length > 0 ? next[next.length - 1]![0] + params.windowMs - nowMs : 0;
    return leftAfter(slidingWindowLog, entries, next, ttlMs, nowMs, params);
  },

  /**
   * Logs `cost` entries now, even beyond the limit, but at most `limit` of them: entries all of
   * one time, `limit` of them already refuse every consume until they slide out together, so more
   * would change no consume's decision (and a huge cost would write millions of members).
   */
  penalty(entries = [], nowMs, params, cost, token) {
    const next = entries.slice(firstLive(entries, nowMs - params.windowMs));
    for (let i = 0; i < Math.min(cost, params.limit); i++) insertSorted(next, [nowMs, memberName(token, i)]);
    const ttlMs = next.length > 0 ? Math.max(next[next.length - 1]![0], nowMs) + params.windowMs - nowMs : 0;
    return leftAfter(slidingWindowLog, entries, next, ttlMs, nowMs, params);
  },
};

/** Members are unique across operations (the token) and within one (the unit's index). */
function memberName(token: string, index: number): string {
  return index === 0 ? token : `${token}:${index}`;
}

/** The members of the last `cost` units a charge added, named as its consume named them. */
function chargedMembers(charge: Charge, cost: number): Set<string> {
  const members = new Set<string>();
  for (let i = Math.max(0, charge.cost - cost); i < charge.cost; i++) members.add(memberName(charge.token, i));
  return members;
}

/** Index of the first entry newer than `floorMs`: entries at or before it have slid out. */
function firstLive(entries: SlidingWindowLogState, floorMs: number): number {
  let lo = 0;
  let hi = entries.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (entries[mid]![0] <= floorMs) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Sorted-set order: time, then member (members are ASCII, so code units order like bytes). */
function insertSorted(entries: LogEntry[], entry: LogEntry): void {
  let at = entries.length;
  while (at > 0 && isAfter(entries[at - 1]!, entry)) at--;
  entries.splice(at, 0, entry);
}

function isAfter(a: LogEntry, b: LogEntry): boolean {
  return a[0] > b[0] || (a[0] === b[0] && a[1] > b[1]);
}
