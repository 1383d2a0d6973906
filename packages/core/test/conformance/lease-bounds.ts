import type { GcraParams } from '../../src/algorithms/gcra/model.js';
import type { TokenBucketParams } from '../../src/algorithms/token-bucket/model.js';
import type { BoundLimit } from '../../src/index.js';

/**
 * What a process admitted: `cost` units at `atMs` (its local clock), or given back by a refund of
 * the spend `of` (negative cost). `chargedAtMs` is when the store charged the lease it came from.
 */
export type Spend =
  | { kind: 'spend'; id: number; atMs: number; cost: number; chargedAtMs: number }
  | { kind: 'refund'; of: number; atMs: number };

/**
 * Undefined when `spends` keep the bound packages/core/README.md states for leases of at most
 * `ttlMs` on `limit`, else what broke it. `charges` are the times the store committed consumes.
 * A refunded spend does not count (a refund may put its unit back into a live lease, to be spent
 * again, as its charge still holds it): the bound is on what was admitted and not given back (for
 * the fixed window, a refund counts within the window that charged it).
 *
 * - fixed window: at most `limit` in each of the store's windows (exact);
 * - sliding window counter: every spend, replayed at its own time, admitted by the exact model;
 * - sliding window log: the same, by the model over a window `ttlMs` shorter;
 * - GCRA / token bucket: the same, by the model with `ttlMs` of rate added to the burst / capacity.
 */
export function withinLeaseBound(
  limit: BoundLimit,
  spends: readonly Spend[],
  charges: readonly number[],
  ttlMs: number,
): string | undefined {
  for (const spend of spends) {
    if (spend.kind === 'spend' && spend.atMs - spend.chargedAtMs > ttlMs)
      return `spent ${spend.atMs - spend.chargedAtMs} ms after its lease`;
  }
  if (limit.algorithm.name === 'fixed-window') return withinWindows(limit, spends, charges);
  return replayed(limit, widened(limit, ttlMs), spends);
}

function widened({ algorithm, params }: BoundLimit, ttlMs: number): unknown {
  switch (algorithm.name) {
    case 'sliding-window-log': {
      const log = params as { limit: number; windowMs: number };
      return { ...log, windowMs: log.windowMs - ttlMs };
    }
    case 'gcra': {
      const gcra = params as GcraParams;
      return { ...gcra, burst: gcra.burst + Math.ceil((ttlMs * 1000) / gcra.intervalUs) };
    }
    case 'token-bucket': {
      const bucket = params as TokenBucketParams;
      return { ...bucket, capacity: bucket.capacity + Math.ceil((ttlMs * bucket.refill) / bucket.intervalMs) };
    }
    default:
      return params;
  }
}

/** Every spend not refunded, in time order, admitted by `limit`'s model under `params`. */
function replayed({ algorithm }: BoundLimit, params: unknown, spends: readonly Spend[]): string | undefined {
  // A sliding log shorter than the TTL bounds nothing.
  if ((params as { windowMs?: number }).windowMs !== undefined && (params as { windowMs: number }).windowMs <= 0) return undefined;
  const refunded = new Set(spends.flatMap((spend) => (spend.kind === 'refund' ? [spend.of] : [])));
  let state: unknown;
  for (const spend of spends) {
    if (spend.kind === 'refund' || refunded.has(spend.id)) continue;
    const step = algorithm.step(state, spend.atMs, params, spend.cost, `s${spend.id}`);
    if (!step.allowed) return `the model refuses ${spend.cost} at ${spend.atMs} (spend ${spend.id}): ${JSON.stringify(step)}`;
    state = step.next;
  }
  return undefined;
}

/** Fixed window: the store's windows start at its first charge after the previous one ended; each holds at most `limit`. */
function withinWindows({ params }: BoundLimit, spends: readonly Spend[], charges: readonly number[]): string | undefined {
  const { limit, windowMs } = params as { limit: number; windowMs: number };
  const starts: number[] = [];
  for (const atMs of charges) if (starts.length === 0 || atMs >= starts[starts.length - 1]! + windowMs) starts.push(atMs);
  const windowOf = (atMs: number) => {
    for (let i = starts.length - 1; i >= 0; i--) if (starts[i]! <= atMs && atMs < starts[i]! + windowMs) return i;
    return -1;
  };
  const counts = new Map<number, number>();
  const byId = new Map<number, Extract<Spend, { kind: 'spend' }>>();
  for (const spend of spends) {
    if (spend.kind === 'spend') {
      byId.set(spend.id, spend);
      const window = windowOf(spend.atMs);
      if (window === -1) return `spend ${spend.id} at ${spend.atMs} falls in no window of the store`;
      counts.set(window, (counts.get(window) ?? 0) + spend.cost);
      if (counts.get(window)! > limit) return `window ${window} (from ${starts[window]}) admitted ${counts.get(window)} > ${limit}`;
    } else {
      // A refund gives back only within the window that charged it.
      const of = byId.get(spend.of)!;
      const window = windowOf(of.atMs);
      if (windowOf(spend.atMs) === window) counts.set(window, counts.get(window)! - of.cost);
    }
  }
  return undefined;
}
