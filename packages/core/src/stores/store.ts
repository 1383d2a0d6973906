import type { AnyAlgorithm, Charge, Outcome } from '../algorithms/types.js';
import type { Keyspace } from '../keys.js';

/** Epoch milliseconds. */
export type Clock = () => number;

/** One limit of a rule, resolved once when the limiter is built. */
export interface BoundLimit {
  readonly name: string;
  readonly algorithm: AnyAlgorithm;
  readonly params: unknown;
  /** What it counts (`requests` unless its spec says otherwise): a cost given per unit charges it its unit's amount. */
  readonly unit: string;
  /** Algorithm name then params (`Algorithm.luaArgs`), as text: what the Redis store sends the script for this limit. */
  readonly luaArgs: readonly string[];
}

/**
 * `release` gives back the lease named by `token` (algorithms with `release`), then answers like `peek`.
 * `refund` gives `cost` back to every limit that can take it (no all-or-nothing: nothing is admitted).
 * `penalty` charges `cost` to every limit that can take it even beyond the limit, never refused
 * (the work is done: the next caller pays); a concurrency limit takes nothing. Like `refund`, it
 * reports what a request of cost 1 would now get.
 * `settle` replaces what a hold's consume charged (`charge`, `charged` per limit) by `costs`: per
 * limit, a refund of the unused part of that charge or a penalty of the excess, and the release
 * of its lease; then reports as `refund` does.
 * `block` blocks the key for `cost` ms (a rule's block limit, `blockFor`), then answers like `peek`.
 */
export type OperationKind = 'consume' | 'peek' | 'reset' | 'release' | 'refund' | 'penalty' | 'settle' | 'block';

/** One decision for one identity: every limit of a rule, evaluated all-or-nothing. */
export interface StoreOperation {
  readonly kind: OperationKind;
  /** The identity, already encoded (see `encodeIdentity`): safe inside a hash tag, bounded in length. */
  readonly identity: string;
  /** One keyspace per limit, in the order of `limits`; a limit's key is `storageKey(keyspace, identity)`. */
  readonly keyspaces: readonly Keyspace[];
  readonly limits: readonly BoundLimit[];
  readonly cost: number;
  /** A cost per limit, in the order of `limits`, when they differ (limits of different units): `cost` is then unused. */
  readonly costs?: readonly number[] | undefined;
  /** Unique to this operation, for algorithms that keep one member per request (may be ''). */
  readonly token: string;
  /** The caller's clock reading; absent, the store decides the time (a RedisStore on server time always does). */
  readonly nowMs?: number | undefined;
  /** A refund: the charge it gives back (`Decision.charge`), so each limit gives back at most what that charge still holds. */
  readonly charge?: Charge | undefined;
  /** A settle: what the hold's consume charged each limit (its `costs`, or its `cost` on every limit). */
  readonly charged?: readonly number[] | undefined;
  /**
   * A consume of one `cost` on every limit (no `costs`) that may take less: when `cost` does not
   * pass, it takes in the same atomic step the most a request of cost 1 could still take on every
   * limit, when that is `minCost` or more (`StoreResult.granted` says how much). Its charge is
   * what it took. A store that ignores it decides `cost`, all or nothing (no `granted`).
   */
  readonly minCost?: number | undefined;
}

export interface StoreResult {
  /** True when a consume was admitted by every limit and its state was written. */
  readonly committed: boolean;
  /** One per limit, in order. */
  readonly outcomes: readonly Outcome[];
  /**
   * The store's own time of the decision (epoch ms): the memory store's clock, the client clock a
   * RedisStore sent, or Redis TIME. A committed consume's charge is dated by it.
   */
  readonly decidedAtMs?: number;
  /**
   * Present when a LeasingStore answered from capacity it leased earlier: the charge is the
   * lease's (dated when the lease was taken, `decidedAtMs`, and named by its token).
   */
  readonly leased?: { readonly token: string };
  /**
   * A peek or reset: whether the store held state for the identity. A reset's outcomes are what
   * that state held, as a peek's, before it was cleared. Absent for other kinds.
   */
  readonly found?: boolean;
  /** A committed consume with `minCost`: the cost it took (`cost`, or less down to `minCost`). */
  readonly granted?: number;
}

export interface Store {
  execute(operation: StoreOperation): Promise<StoreResult>;
  /**
   * Consumes of several rules and identities, all or nothing, at one moment: each is committed
   * only when every limit of every one of them admits it; otherwise nothing is written and each
   * result says what its limits answered. The keys of the operations are all different. Stores
   * without it cannot serve `waitAll`.
   */
  executeGroup?(operations: readonly StoreOperation[]): Promise<StoreResult[]>;
  /**
   * What fails together with the part of the store serving keys hashed by `hashTag` (an
   * operation's identity, or its prefix's hash tag: see `Keyspace.hashTag`), e.g. a Cluster
   * node's address. The limiter keeps one breaker per domain; without this method, one in all.
   */
  failureDomain?(hashTag: string): string;
  /**
   * An answer decided without the backend (a LeasingStore's lease), before this returns; undefined
   * when `execute` must be called. Answered here, an operation passes no timeout or breaker, so a
   * lease keeps answering while its backend is down.
   */
  answerNow?(operation: StoreOperation): StoreResult | undefined;
}
