import { type Decision, type Lease, limitInfo, toDecision } from './decision.js';
import { describeValue, TollgateError } from './errors.js';
import { assertIdentity, assertPrefix, encodeIdentity, keyspacesFor } from './keys.js';
import { bindRule, type RuleSpec } from './spec.js';
import { MemoryStore } from './stores/memory-store.js';
import type { BoundLimit, Clock, OperationKind, Store } from './stores/store.js';
import { uniqueToken } from './token.js';

export interface LimiterOptions {
  /** Where state lives. Default: a new `MemoryStore` (using `clock`). */
  store?: Store;
  /** Epoch-millisecond clock passed to the store with every call (tests use a virtual one). */
  clock?: Clock;
  /** Start of every storage key; give each rule its own so identities of different rules never collide. Default `tollgate`. */
  prefix?: string;
}

export type CreateLimiterOptions = RuleSpec & LimiterOptions;

export interface ConsumeOptions {
  /** Units this request takes (a whole number >= 1). Default 1. */
  cost?: number;
}

export interface Limiter {
  /** The rule's limits, resolved. */
  readonly limits: readonly BoundLimit[];
  /**
   * Takes `cost` from every limit of the rule for `key`, or from none of them. A `concurrency`
   * limit takes one slot (whatever the cost), returned as `decision.lease`.
   */
  consume(key: string, options?: ConsumeOptions): Promise<Decision>;
  /** Gives back a lease's slot. Releasing twice, or after the lease expired, frees nothing more. */
  release(lease: Lease): Promise<void>;
  /** The decision a request of cost 1 would get now; changes nothing. */
  peek(key: string): Promise<Decision>;
  /** Forgets `key`'s state; resolves to the decision a fresh identity would get. */
  reset(key: string): Promise<Decision>;
  /**
   * Gives `cost` (default 1) back to every limit that can take it, e.g. for a request that
   * failed and should not count; resolves to the decision a request of cost 1 would now get.
   */
  refund(key: string, options?: ConsumeOptions): Promise<Decision>;
}

const OPTION_FIELDS = new Set(['store', 'clock', 'prefix']);

export function createLimiter(options: CreateLimiterOptions): Limiter {
  if (typeof options !== 'object' || options === null) {
    throw new TollgateError('ERR_TOLLGATE_INVALID_SPEC', `spec must be an object (got ${describeValue(options)})`, 'spec');
  }
  const { store: givenStore, clock, prefix = 'tollgate' } = options;
  const rule = Object.fromEntries(Object.entries(options).filter(([field]) => !OPTION_FIELDS.has(field)));
  const limits = bindRule(rule);
  assertPrefix(prefix);
  if (clock !== undefined && typeof clock !== 'function') {
    throw new TollgateError('ERR_TOLLGATE_INVALID_OPTION', 'clock must be a function returning epoch milliseconds', 'clock');
  }
  const store = givenStore ?? new MemoryStore(clock ? { clock } : {});
  if (typeof store?.execute !== 'function') {
    throw new TollgateError('ERR_TOLLGATE_INVALID_OPTION', 'store must be a MemoryStore, a RedisStore or another Store', 'store');
  }
  const keyspaces = keyspacesFor(
    prefix,
    limits.map((limit) => `${limit.name}:${limit.algorithm.name}`),
  );
  const infos = limits.map(limitInfo);
  // The memory store never waits: skipping its promise keeps the in-process path lean.
  const memory = store instanceof MemoryStore ? store : undefined;

  const holdsLeases = limits.some((limit) => limit.algorithm.release !== undefined);
  // Leases and sliding-log members are named after a token unique to the consume.
  const needsToken = holdsLeases || limits.some((limit) => limit.algorithm.needsToken === true);

  function run(kind: OperationKind, key: string, cost: number, token = ''): Promise<Decision> {
    try {
      assertIdentity(key);
      const operation = { kind, identity: encodeIdentity(key), keyspaces, limits, cost, token, nowMs: clock?.() };
      if (memory !== undefined) return Promise.resolve(toDecision(kind, memory.executeSync(operation), infos, cost));
      return store.execute(operation).then((result) => toDecision(kind, result, infos, cost));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  function consume(key: string, cost: number): Promise<Decision> {
    if (!needsToken) return run('consume', key, cost);
    const token = uniqueToken();
    const decision = run('consume', key, cost, token);
    if (!holdsLeases) return decision;
    return decision.then((admitted) => {
      if (admitted.allowed) admitted.lease = { key, id: token };
      return admitted;
    });
  }

  return {
    limits,
    consume: (key, consumeOptions) => runWithCost('consume', key, consumeOptions),
    async release(lease) {
      if (typeof lease !== 'object' || lease === null || typeof lease.id !== 'string' || lease.id === '') {
        throw new TollgateError('ERR_TOLLGATE_INVALID_KEY', `lease must be one returned by consume (got ${describeValue(lease)})`, 'lease');
      }
      if (holdsLeases) await run('release', lease.key, 1, lease.id);
    },
    peek: (key) => run('peek', key, 1),
    reset: (key) => run('reset', key, 1),
    refund: (key, refundOptions) => runWithCost('refund', key, refundOptions),
  };

  function runWithCost(kind: OperationKind, key: string, costOptions: ConsumeOptions | undefined): Promise<Decision> {
    const cost = costOptions?.cost ?? 1;
    if (!Number.isSafeInteger(cost) || cost < 1) {
      return Promise.reject(
        new TollgateError('ERR_TOLLGATE_INVALID_COST', `cost must be a whole number >= 1 (got ${describeValue(cost)})`, 'cost'),
      );
    }
    return kind === 'consume' ? consume(key, cost) : run(kind, key, cost);
  }
}
