import { type CreateConcurrencyLimiterOptions, createConcurrencyLimiter, type Decision, type Lease, type Store } from '../../src/index.js';
import { STORE_SEMANTICS } from './stores.js';
import { comparable } from './trace.js';

export type ConcurrencyStep =
  | { op: 'acquire'; advanceMs: number }
  | { op: 'release'; advanceMs: number; pick: number }
  | { op: 'peek'; advanceMs: number }
  | { op: 'reset'; advanceMs: number };

/** A decision with the lease id left out (ids are unique per acquire, so they differ between stores). */
export type ComparableDecision = Decision & { leased: boolean };

let traceCounter = 0;

/**
 * Plays one concurrency trace on one store under a virtual clock. A release gives back the
 * `pick`-th lease taken so far (released and expired ones included) and records the peek
 * that follows it.
 */
export async function playConcurrencyTrace(
  store: Store,
  spec: Pick<CreateConcurrencyLimiterOptions, 'limit' | 'leaseTtl'>,
  steps: readonly ConcurrencyStep[],
  startMs: number,
): Promise<ComparableDecision[]> {
  let now = startMs;
  const prefix = `ctrace${process.pid}-${traceCounter++}`;
  const limiter = createConcurrencyLimiter({ ...spec, store, clock: () => now, prefix, ...STORE_SEMANTICS });
  const leases: Lease[] = [];
  const decisions: ComparableDecision[] = [];
  for (const step of steps) {
    now += step.advanceMs;
    if (step.op === 'acquire') {
      const { lease, ...decision } = await limiter.acquire('client');
      if (lease) leases.push(lease);
      decisions.push(comparable({ ...decision, leased: lease !== undefined }));
      continue;
    }
    if (step.op === 'release' && leases.length > 0) await limiter.release(leases[step.pick % leases.length]!);
    const decision = step.op === 'reset' ? await limiter.reset('client') : await limiter.peek('client');
    decisions.push({ ...decision, leased: false });
  }
  return decisions;
}
