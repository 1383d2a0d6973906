import type { Policy } from './algorithms/types.js';
import { type Decision, toDecision } from './decision.js';
import { describeValue, TollgateError } from './errors.js';
import { assertIdentity, assertPrefix, storageKeys } from './keys.js';
import type { LimiterOptions } from './limiter.js';
import { bindConcurrencyLimit, type ConcurrencySpec } from './spec.js';
import { MemoryStore } from './stores/memory-store.js';
import type { BoundLimit, OperationKind } from './stores/store.js';
import { uniqueToken } from './token.js';

export type CreateConcurrencyLimiterOptions = ConcurrencySpec & LimiterOptions;

/** A held slot: pass it to `release` when the request is done. */
export interface Lease {
  /** The identity the slot was taken for. */
  readonly key: string;
  /** Unique to this lease (across processes): the member stored for it. */
  readonly id: string;
}

export interface ConcurrencyDecision extends Decision {
  /** Present when `allowed`: the slot now held. */
  lease?: Lease;
}

export interface ConcurrencyLimiter {
  /** The limit, resolved. */
  readonly limits: readonly BoundLimit[];
  /** Takes a slot for `key` if one is free; `retryAfterMs` is when the oldest lease expires at the latest. */
  acquire(key: string): Promise<ConcurrencyDecision>;
  /** Frees the lease's slot. Releasing twice, or after the lease expired, frees nothing more. */
  release(lease: Lease): Promise<void>;
  /** The decision an `acquire` would get now; takes nothing. */
  peek(key: string): Promise<Decision>;
  /** Frees every slot of `key`. */
  reset(key: string): Promise<Decision>;
}

const OPTION_FIELDS = new Set(['store', 'clock', 'prefix']);

/**
 * A semaphore per identity (Stripe's concurrent-requests limiter): at most `limit` requests
 * in flight, each lease freed by `release` or, if its holder never calls it (a crashed
 * process), after `leaseTtl`. Works on the memory store, Redis and Redis Cluster alike.
 */
export function createConcurrencyLimiter(options: CreateConcurrencyLimiterOptions): ConcurrencyLimiter {
  if (typeof options !== 'object' || options === null) {
    throw new TollgateError('ERR_TOLLGATE_INVALID_SPEC', `options must be an object (got ${describeValue(options)})`, 'spec');
  }
  const { store: givenStore, clock, prefix = 'tollgate' } = options;
  const limit = bindConcurrencyLimit(Object.fromEntries(Object.entries(options).filter(([field]) => !OPTION_FIELDS.has(field))));
  assertPrefix(prefix);
  if (clock !== undefined && typeof clock !== 'function') {
    throw new TollgateError('ERR_TOLLGATE_INVALID_OPTION', 'clock must be a function returning epoch milliseconds', 'clock');
  }
  const store = givenStore ?? new MemoryStore(clock ? { clock } : {});
  if (typeof store?.execute !== 'function') {
    throw new TollgateError('ERR_TOLLGATE_INVALID_OPTION', 'store must be a MemoryStore, a RedisStore or another Store', 'store');
  }
  const limits = [limit];
  const suffixes = [`${limit.name}:${limit.algorithm.name}`];
  const policies: Policy[] = [limit.algorithm.policy(limit.params)];

  async function run(kind: OperationKind, key: string, token: string): Promise<Decision> {
    assertIdentity(key);
    const keys = storageKeys(prefix, key, suffixes);
    const result = await store.execute({ kind, keys, limits, cost: 1, token, nowMs: clock?.() });
    return toDecision(kind, result, limits, policies, 1);
  }

  return {
    limits,
    async acquire(key) {
      const id = uniqueToken();
      const decision: ConcurrencyDecision = await run('consume', key, id);
      if (decision.allowed) decision.lease = { key, id };
      return decision;
    },
    async release(lease) {
      if (typeof lease !== 'object' || lease === null || typeof lease.id !== 'string' || lease.id === '') {
        throw new TollgateError('ERR_TOLLGATE_INVALID_KEY', `lease must be one returned by acquire (got ${describeValue(lease)})`, 'lease');
      }
      await run('release', lease.key, lease.id);
    },
    peek: (key) => run('peek', key, ''),
    reset: (key) => run('reset', key, ''),
  };
}
