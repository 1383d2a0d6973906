import { type Decision, type Lease, limitInfo, toDecision } from './decision.js';
import { describeValue, TollgateError } from './errors.js';
import { type BypassReason, type LimiterEventName, LimiterEvents, type LimiterListener, type LimiterListeners } from './events.js';
import { assertIdentity, assertPrefix, encodeIdentity, keyspacesFor } from './keys.js';
import { type Breaker, type BreakerOptions, type BreakerState, Breakers } from './resilience/breaker.js';
import { DenyCache, type DenyCacheOptions } from './resilience/deny-cache.js';
import { policyDecision } from './resilience/policy-decision.js';
import { shareOfRule } from './resilience/share.js';
import { StoreTimeoutError, withTimeout } from './resilience/timeout.js';
import { bindRule, type RuleSpec } from './spec.js';
import { MemoryStore } from './stores/memory-store.js';
import type { BoundLimit, Clock, OperationKind, Store, StoreOperation, StoreResult } from './stores/store.js';
import { uniqueToken } from './token.js';
import { createWaiter, type WaitOptions } from './wait/wait.js';

/** A fallback limiter built for you: the rule scaled to `share` (e.g. `1 / instances`) on `store`. */
export interface FallbackShare {
  /** Default: a new MemoryStore. */
  store?: Store;
  /** This instance's part of every count and rate of the rule, in (0, 1]. */
  share: number;
}

/**
 * What a limiter does when its store fails or times out: `'open'` allows, `'closed'` denies,
 * `{ fallback }` asks another limiter (yours, or one built from a share of this rule).
 */
export type StoreErrorPolicy = 'open' | 'closed' | { fallback: Limiter | FallbackShare };

export interface LimiterOptions {
  /** Where state lives. Default: a new `MemoryStore` (using `clock`). */
  store?: Store;
  /**
   * Epoch-millisecond clock (tests use a virtual one): times the breaker and deny cache, and is
   * passed with every call for the store to decide on. A RedisStore with `time: 'server'` keeps Redis TIME.
   */
  clock?: Clock;
  /** Start of every storage key; give each rule its own so identities of different rules never collide. Default `tollgate`. */
  prefix?: string;
  /** Names this limiter in events and metrics. Default `default`. */
  rule?: string;
  /** Milliseconds a store call may take before the failure policy answers instead. Default 100. */
  timeout?: number;
  /** Default `'open'`. */
  onStoreError?: StoreErrorPolicy;
  /** Stops calling a failing store for a while; `false` turns it off. */
  breaker?: BreakerOptions | false;
  /**
   * Answers identities the store has denied until a known time locally until then. Default: on
   * (10,000 identities) unless the store is a MemoryStore or an algorithm of the rule does not qualify.
   */
  denyCache?: DenyCacheOptions | boolean;
  /** Decide and report, but always allow: `decision.shadow` says what would have happened. */
  shadow?: boolean;
  /** Listeners, as `limiter.on` would add them. */
  events?: LimiterListeners;
}

export type CreateLimiterOptions = RuleSpec & LimiterOptions;

export interface ConsumeOptions {
  /** Units this request takes (a whole number >= 1). Default 1. */
  cost?: number;
}

export interface Limiter {
  /** The `rule` option: names this limiter in events and metrics. */
  readonly rule: string;
  /** The rule's limits, resolved. */
  readonly limits: readonly BoundLimit[];
  /**
   * `closed` while the store is called, `open` while it is left alone, `half-open` while a probe
   * is out; with a store of several failure domains (Cluster nodes), the least available of them.
   */
  readonly breakerState: BreakerState;
  /**
   * Takes `cost` from every limit of the rule for `key`, or from none of them. A `concurrency`
   * limit takes one slot (whatever the cost), returned as `decision.lease`. Never rejects because of the store.
   */
  consume(key: string, options?: ConsumeOptions): Promise<Decision>;
  /**
   * Gives back a lease's slot. Releasing twice, or after the lease expired, frees nothing more;
   * releasing `undefined` (a decision the failure policy answered holds no lease) does nothing.
   */
  release(lease: Lease | undefined): Promise<void>;
  /** The decision a request of cost 1 would get now; changes nothing. */
  peek(key: string): Promise<Decision>;
  /** Forgets `key`'s state; resolves to the decision a fresh identity would get. */
  reset(key: string): Promise<Decision>;
  /**
   * Gives `cost` (default 1) back to every limit that can take it, e.g. for a request that
   * failed and should not count; resolves to the decision a request of cost 1 would now get.
   */
  refund(key: string, options?: ConsumeOptions): Promise<Decision>;
  /**
   * Waits until a job of `cost` may go on, then resolves with the decision that admitted it
   * (`delayMs` 0: nothing left to hold). Rejects at once with `ERR_TOLLGATE_WAIT_TIMEOUT` when
   * the wait would exceed `maxWait`, and with the signal's reason on abort, giving back what it
   * had reserved. A `concurrency` limit's slot comes back as `decision.lease`, as with `consume`.
   */
  wait(key: string, options?: WaitOptions): Promise<Decision>;
  /** Adds a listener; returns a function that removes it. */
  on<E extends LimiterEventName>(event: E, listener: LimiterListener<E>): () => void;
}

const OPTION_FIELDS = new Set(['store', 'clock', 'prefix', 'rule', 'timeout', 'onStoreError', 'breaker', 'denyCache', 'shadow', 'events']);

export function createLimiter(options: CreateLimiterOptions): Limiter {
  if (typeof options !== 'object' || options === null) {
    throw new TollgateError('ERR_TOLLGATE_INVALID_SPEC', `spec must be an object (got ${describeValue(options)})`, 'spec');
  }
  const { store: givenStore, clock, prefix = 'tollgate', rule = 'default', timeout = 100, shadow = false } = options;
  const spec = Object.fromEntries(Object.entries(options).filter(([field]) => !OPTION_FIELDS.has(field))) as RuleSpec;
  const limits = bindRule(spec);
  assertPrefix(prefix);
  if (clock !== undefined && typeof clock !== 'function') {
    throw invalidOption('clock', 'must be a function returning epoch milliseconds', clock);
  }
  const store = givenStore ?? new MemoryStore(clock ? { clock } : {});
  if (typeof store?.execute !== 'function') {
    throw invalidOption('store', 'must be a MemoryStore, a RedisStore or another Store', store);
  }
  if (typeof rule !== 'string' || rule.length === 0 || rule.length > 128) {
    throw invalidOption('rule', 'must be a name of 1-128 characters', rule);
  }
  if (typeof timeout !== 'number' || !Number.isSafeInteger(timeout) || timeout < 1) {
    throw invalidOption('timeout', 'must be a whole number of milliseconds >= 1', timeout);
  }
  if (typeof shadow !== 'boolean') throw invalidOption('shadow', 'must be true or false', shadow);
  const now = clock ?? Date.now;
  const breakers = options.breaker === false ? undefined : new Breakers(options.breaker ?? {}, now);
  const denyCache = DenyCache.forRule(options.denyCache, store instanceof MemoryStore, limits);
  const fallback = buildFallback(options.onStoreError ?? 'open', spec, { clock, prefix });
  const closedRetryAfterMs = breakers?.coolDownMs ?? 1000;
  const events = LimiterEvents.from(options.events);

  const keyspaces = keyspacesFor(
    prefix,
    limits.map((limit) => `${limit.name}:${limit.algorithm.name}`),
  );
  const infos = limits.map(limitInfo);
  const holdsLeases = limits.some((limit) => limit.algorithm.release !== undefined);
  // Leases and sliding-log members are named after a token unique to the consume.
  const needsToken = holdsLeases || limits.some((limit) => limit.algorithm.needsToken === true);
  // The memory store never waits nor fails: it is called synchronously, without timeout or breaker.
  const memory = store instanceof MemoryStore ? store : undefined;

  function run(kind: OperationKind, key: string, cost: number, token = '', checked: readonly BoundLimit[] = limits): Promise<Decision> {
    try {
      assertIdentity(key);
      const operation = { kind, identity: encodeIdentity(key), keyspaces, limits: checked, cost, token, nowMs: clock?.() };
      if (memory === undefined) return runOnStore(operation, key);
      return Promise.resolve(finish(kind, key, cost, toDecision(kind, memory.executeSync(operation), infos, cost, now()), 0));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  async function runOnStore(operation: StoreOperation, key: string): Promise<Decision> {
    const { kind, cost } = operation;
    // Waiters check the rule in reserve mode (other limits): their denials say nothing of a plain consume.
    const cacheable = denyCache !== undefined && kind === 'consume' && cost === 1 && operation.limits === limits;
    if (cacheable) {
      const cached = denyCache.get(key, now());
      if (cached) return finish(kind, key, cost, cached, 0);
    }
    // Capacity given back here may end a cached denial early.
    if (kind === 'reset' || kind === 'refund') denyCache?.forget(key);
    // One breaker per failure domain: a failed Cluster node does not stop calls to the others.
    const breaker = breakers?.for((store as Store).failureDomain?.(operation.identity) ?? '');
    if (breaker && !breaker.admit()) return bypass(kind, key, cost, 'breaker-open', breaker);
    const sentAtMs = now();
    const startedAt = performance.now();
    let result: StoreResult;
    try {
      result = await withTimeout(store.execute(operation), timeout);
    } catch (error) {
      return storeFailed(kind, key, cost, error, performance.now() - startedAt, breaker);
    }
    const openForMs = breaker?.succeeded();
    if (openForMs !== undefined) events.emit('breakerClose', { rule, openForMs });
    const decision = toDecision(kind, result, infos, cost, now());
    if (cacheable) denyCache.remember(key, decision, sentAtMs);
    return finish(kind, key, cost, decision, performance.now() - startedAt);
  }

  function storeFailed(
    kind: OperationKind,
    key: string,
    cost: number,
    cause: unknown,
    latencyMs: number,
    breaker: Breaker | undefined,
  ): Promise<Decision> {
    const reason = cause instanceof StoreTimeoutError ? 'timeout' : 'error';
    const error =
      cause instanceof TollgateError
        ? cause
        : new TollgateError('ERR_TOLLGATE_STORE', `store call failed: ${(cause as Error)?.message ?? String(cause)}`, undefined, { cause });
    events.emit('storeError', { rule, key, reason, error, latencyMs });
    const failures = breaker?.failed();
    if (failures !== undefined) events.emit('breakerOpen', { rule, failures, coolDownMs: breaker!.coolDownMs, error });
    return bypass(kind, key, cost, reason, breaker);
  }

  async function bypass(
    kind: OperationKind,
    key: string,
    cost: number,
    reason: BypassReason,
    breaker: Breaker | undefined,
  ): Promise<Decision> {
    let decision: Decision;
    if (typeof fallback === 'string') {
      decision = policyDecision(fallback === 'open', infos, breaker?.retryAfterMs() || closedRetryAfterMs, now());
    } else {
      decision = { ...(await askFallback(fallback, kind, key, cost)), source: 'fallback' };
    }
    if (events.has('fallback')) {
      events.emit('fallback', { rule, key, reason, policy: typeof fallback === 'string' ? fallback : 'fallback', decision });
    }
    return finish(kind, key, cost, decision, 0);
  }

  function finish(kind: OperationKind, key: string, cost: number, verdict: Decision, latencyMs: number): Decision {
    const decision: Decision = shadow
      ? {
          ...verdict,
          allowed: true,
          retryAfterMs: 0,
          delayMs: 0,
          shadow: { allowed: verdict.allowed, retryAfterMs: verdict.retryAfterMs, delayMs: verdict.delayMs },
        }
      : verdict;
    if (kind === 'consume') {
      const event = !verdict.allowed ? 'denied' : verdict.delayMs > 0 ? 'delayed' : 'allowed';
      if (events.has(event)) events.emit(event, { rule, key, cost, decision, latencyMs });
    }
    return decision;
  }

  const waiter = createWaiter({
    limits,
    now,
    consume: (key, cost, checked) => consume(key, cost, checked),
    refund: (key, cost) => run('refund', key, cost),
    release: (lease) => run('release', lease.key, 1, lease.id).then(() => undefined),
  });

  return {
    rule,
    limits,
    get breakerState() {
      return breakers?.state ?? 'closed';
    },
    consume: (key, consumeOptions) => runWithCost('consume', key, consumeOptions),
    async release(lease) {
      // A decision the failure policy (or a fallback) answered took no slot here: nothing to give back.
      if (lease === undefined) return;
      if (typeof lease !== 'object' || lease === null || typeof lease.id !== 'string' || lease.id === '') {
        throw new TollgateError('ERR_TOLLGATE_INVALID_KEY', `lease must be one returned by consume (got ${describeValue(lease)})`, 'lease');
      }
      if (holdsLeases) await run('release', lease.key, 1, lease.id);
      waiter.released(lease.key);
    },
    peek: (key) => run('peek', key, 1),
    reset: (key) => run('reset', key, 1),
    refund: (key, refundOptions) => runWithCost('refund', key, refundOptions),
    wait: (key, waitOptions) => waiter.wait(key, waitOptions),
    on: (event, listener) => events.on(event, listener),
  };

  function consume(key: string, cost: number, checked: readonly BoundLimit[] = limits): Promise<Decision> {
    if (!needsToken) return run('consume', key, cost, '', checked);
    const token = uniqueToken();
    const decision = run('consume', key, cost, token, checked);
    if (!holdsLeases) return decision;
    return decision.then((admitted) => {
      // Only a store decision holds a slot: policy and fallback answers took none here.
      if (admitted.allowed && admitted.source === 'store') admitted.lease = { key, id: token };
      return admitted;
    });
  }

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

/** Puts an operation the store could not answer to the fallback limiter. */
function askFallback(fallback: Limiter, kind: OperationKind, key: string, cost: number): Promise<Decision> {
  switch (kind) {
    case 'consume':
      return fallback.consume(key, { cost });
    case 'refund':
      return fallback.refund(key, { cost });
    case 'reset':
      return fallback.reset(key);
    default:
      return fallback.peek(key);
  }
}

function invalidOption(field: string, expectation: string, value: unknown): TollgateError {
  return new TollgateError('ERR_TOLLGATE_INVALID_OPTION', `${field} ${expectation} (got ${describeValue(value)})`, field);
}

function buildFallback(
  policy: StoreErrorPolicy,
  spec: RuleSpec,
  { clock, prefix }: { clock: Clock | undefined; prefix: string },
): 'open' | 'closed' | Limiter {
  if (policy === 'open' || policy === 'closed') return policy;
  const fallback = typeof policy === 'object' && policy !== null ? (policy as { fallback?: unknown }).fallback : undefined;
  if (typeof fallback !== 'object' || fallback === null) {
    throw invalidOption('onStoreError', "must be 'open', 'closed' or { fallback: Limiter | { share, store? } }", policy);
  }
  if (typeof (fallback as Limiter).consume === 'function') return fallback as Limiter;
  const { store, share } = fallback as FallbackShare;
  let scaled: RuleSpec;
  try {
    scaled = shareOfRule(spec, share);
  } catch (error) {
    const cause = error as TollgateError;
    throw new TollgateError(cause.code, `onStoreError.fallback: ${cause.message}`, `onStoreError.fallback.${cause.field}`);
  }
  return createLimiter({
    ...scaled,
    store: store ?? new MemoryStore(clock ? { clock } : {}),
    ...(clock ? { clock } : {}),
    prefix,
    denyCache: false,
  } as CreateLimiterOptions);
}
