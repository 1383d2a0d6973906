import type { Decision, Lease } from './decision.js';
import type { Duration } from './duration.js';
import type { LimiterEventName, LimiterListener, LimiterListeners } from './events.js';
import type { LimitValues } from './limit-values.js';
import type { Logger } from './logger.js';
import type { BreakerOptions, BreakerState } from './resilience/breaker.js';
import type { DenyCacheOptions } from './resilience/deny-cache.js';
import type { RuleSpec } from './spec.js';
import type { BoundLimit, Clock, Store } from './stores/store.js';
import type { Cost } from './units.js';
import type { WaitOptions } from './wait/wait-options.js';

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
export type StoreFailureMode = 'open' | 'closed' | { fallback: Limiter | FallbackShare };
/** @deprecated The same type under its former name: use `StoreFailureMode`. */
export type StoreErrorPolicy = StoreFailureMode;

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
  /** Milliseconds a store call may take before the failure mode answers instead. Default 100. */
  timeout?: number;
  /** Default `'open'`. */
  onStoreError?: StoreFailureMode;
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
  /**
   * Where a store outage is reported: one `error` line when the failure mode first answers for
   * the store, none more until a store call succeeds again. Default `console`.
   */
  logger?: Logger;
}

export type CreateLimiterOptions = RuleSpec & LimiterOptions;

export interface ConsumeOptions {
  /**
   * Units this request takes. A whole number >= 1 charges every limit of the rule that much;
   * `{ tokens: 800 }` charges each limit the amount of its `unit` (whole numbers >= 0), 1 for a
   * unit it does not name. Default 1.
   */
  cost?: Cost;
}

export interface HoldOptions {
  /** The estimate, charged now as `consume` charges its cost. Default 1. */
  cost?: Cost;
  /**
   * How long the hold waits for `settle`: after it, settle and cancel change nothing and the
   * estimate stays charged (nothing to do in the store). Default 10 minutes.
   */
  ttl?: Duration;
}

/**
 * `open`: admitted and charged its estimate, not yet settled; `settled`, `cancelled`; `denied`:
 * refused, nothing charged; `uncharged`: admitted without the store charging it (its failure
 * mode or fallback answered): nothing to settle; `expired`: settled or cancelled after its `ttl`.
 */
export type HoldStatus = 'open' | 'settled' | 'cancelled' | 'denied' | 'uncharged' | 'expired';

/** A consume of an estimate, settled later at the actual cost (`limiter.hold`). */
export interface Hold {
  readonly key: string;
  /** The decision of the hold's consume: allowed or not, as `consume` reports it. */
  readonly decision: Decision;
  readonly status: HoldStatus;
  /**
   * Charges `actual` instead of the estimate (same shapes as `cost`; amounts >= 0): per limit, the
   * unused part comes back as a refund of the hold's charge does (nothing flows into a later
   * window, period or bucket state), an excess is charged even beyond the limit (never refused),
   * and a concurrency limit's slot is released; one store call. Resolves to the decision a
   * request of cost 1 would now get. Only the first settle or cancel of an open hold within its
   * `ttl` changes anything.
   */
  settle(actual: Cost): Promise<Decision>;
  /** Gives the whole estimate back (a settle at 0) and releases the slot. */
  cancel(): Promise<Decision>;
}

export interface RefundOptions extends ConsumeOptions {
  /**
   * The decision of the consume being refunded (its `charge`): each limit then gives back at most
   * what that charge still holds, nothing once the window, period or bucket state it charged has
   * passed; `cost` defaults to the cost charged. A decision with no charge (denied, or answered
   * without the store) gives nothing back.
   */
  charge?: Pick<Decision, 'charge'>;
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
   * Charges the estimate `options.cost` as `consume` does, all limits or none, for work whose cost
   * is known only once done (tokens, bytes); the `Hold` settles the actual cost. Never rejects
   * because of the store.
   */
  hold(key: string, options?: HoldOptions): Promise<Hold>;
  /**
   * Gives back a lease's slot. Releasing twice, or after the lease expired, frees nothing more;
   * releasing `undefined` (a decision the failure mode answered holds no lease) does nothing.
   */
  release(lease: Lease | undefined): Promise<void>;
  /** The decision a request of cost 1 would get now; changes nothing. */
  peek(key: string): Promise<Decision>;
  /** Forgets `key`'s state; resolves to the decision a fresh identity would get. */
  reset(key: string): Promise<Decision>;
  /**
   * Gives `cost` back to every limit that can take it, e.g. for a request that failed and should
   * not count; resolves to the decision a request of cost 1 would now get. Pass the consume's
   * decision as `charge` so that a refund arriving late gives back only what is still charged;
   * without it, `cost` (default 1) comes off whatever the state holds now.
   */
  refund(key: string, options?: RefundOptions): Promise<Decision>;
  /**
   * Waits until a job of `cost` may go on, then resolves with the decision that admitted it
   * (`delayMs` 0: nothing left to hold). Rejects at once with `ERR_TOLLGATE_WAIT_TIMEOUT` when
   * the wait would exceed `maxWait`, and with the signal's reason on abort, giving back what it
   * had reserved. A `concurrency` limit's slot comes back as `decision.lease`, as with `consume`.
   */
  wait(key: string, options?: WaitOptions): Promise<Decision>;
  /**
   * This limiter with `values` chosen for counts and rates of its rule (`{ limit: 500 }`, or
   * `{ limits: { daily: { perDay: 10_000 } } }` by limit name): per plan, per tenant, per call.
   * It keeps the same state (storage keys are named by limit name and algorithm, not by values),
   * so a client whose limit changes keeps its count; store, prefix, failure mode, breaker, deny
   * cache and listeners are this limiter's. The same values give the same limiter object (the
   * last 256 distinct ones are kept). Values are merged onto the rule as written, always this
   * limiter's own rule (`a.withLimits(x).withLimits(y)` is `a.withLimits(y)`); a bad one throws
   * `ERR_TOLLGATE_INVALID_SPEC` naming it (`withLimits.limit`).
   */
  withLimits(values: LimitValues): Limiter;
  /** Adds a listener; returns a function that removes it. */
  on<E extends LimiterEventName>(event: E, listener: LimiterListener<E>): () => void;
}
