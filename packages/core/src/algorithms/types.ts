import type { FieldName, FieldPath, SpecFields, SpecValues } from './spec-fields.js';

/**
 * What one limit says about one request. Integer milliseconds throughout, so the
 * TypeScript step and the Lua script report exactly the same numbers.
 */
export interface Outcome {
  allowed: boolean;
  /** Requests of cost 1 still admissible right now (after this one, when allowed). */
  remaining: number;
  /** Until the limit is back to full; Infinity never (a count that never resets). */
  resetAfterMs: number;
  /** Until a request of this cost could pass: 0 when allowed, Infinity when it never can. */
  retryAfterMs: number;
  /** Shaping only: hold the request this long, then pass it on. 0 otherwise. */
  delayMs: number;
}

export interface StepResult<S> extends Outcome {
  /** The state to store when the operation commits; undefined leaves the state as it was. */
  next: S | undefined;
  /** How long `next` must be kept; after that it is equivalent to no state at all. */
  ttlMs: number;
}

/**
 * What an admitted consume took, as its decision carries it (`decision.charge`): a refund given it
 * gives back only what that charge still holds, so a refund arriving after the window, period or
 * bucket state it charged gives back nothing.
 */
export interface Charge {
  /** When the store decided, on the store's own timeline (its clock, the client clock sent, or Redis TIME). */
  readonly atMs: number;
  /** The cost charged (of a consume charging its limits different costs, the most it charged one). */
  readonly cost: number;
  /** Of a consume charging its limits different costs (units): what it charged each, in the rule's order. */
  readonly costs?: readonly number[];
  /** The consume's token ('' when its rule needed none): names the members it added. */
  readonly token: string;
}

/** How a limit is advertised in the `RateLimit-Policy` header: `quota` units per `windowMs`. */
export interface Policy {
  /** The most that can pass at once: `Decision.limit`, so `remaining` never exceeds it. */
  quota: number;
  windowMs: number;
  /** `'concurrent-requests'`: `quota` requests in flight at once, over no time window. Default: requests per `windowMs`. */
  unit?: 'concurrent-requests';
  /**
   * How long the limit takes from one available unit back to full: when `remaining` is 0, one
   * unit is available again after `resetAfterMs - refillMs`. Absent when a decision does not
   * tell when the next unit comes back (the sliding windows).
   */
  refillMs?: number;
}

/**
 * One algorithm, twice: `step` for the memory store and a Lua step (registered as `ALGOS[name]`
 * in the Redis script) that must make the same decisions. What the Lua side provides and how it
 * stores state is described at the top of `lua/prelude.lua`.
 */
export interface Algorithm<P, S, F extends SpecFields = SpecFields, N extends string = string> {
  readonly name: N;
  /** The Lua step, registered as `ALGOS[name]` inside the one Redis script. */
  readonly lua: string;
  /**
   * The spec fields besides `algorithm` and `name`, each with its kind: a spec with any other
   * field is refused, and a fallback share scales each field as its kind says.
   */
  readonly fields: F;
  /** Validates a spec and returns normalised params; errors name a field where `at` says it was written. */
  parse(spec: SpecValues<FieldName<F>>, at: FieldPath<FieldName<F>>): P;
  /** The params in the order the Lua step reads them from ARGV. */
  luaArgs(params: P): readonly number[];
  /** What `Decision.limit` reports: the most that can ever pass at once. */
  limit(params: P): number;
  /** Units of `remaining` a request of `cost` takes; default `cost` (a lease takes one slot whatever the cost). */
  unitsTaken?(cost: number): number;
  policy(params: P): Policy;
  /** `token` is unique to the operation (see StoreOperation.token). */
  step(state: S | undefined, nowMs: number, params: P, cost: number, token: string): StepResult<S>;
  /**
   * Algorithms holding one member per admitted request (leases): gives back the member
   * `token` added. Returns the state to keep (undefined: none) and for how long.
   */
  release?(state: S | undefined, nowMs: number, params: P, token: string): Pick<StepResult<S>, 'next' | 'ttlMs'>;
  /**
   * True when the Lua state is a sorted set (Lua `fetch = false`): the limit keeps a key of its
   * own, under the identity's hash tag. Otherwise its state is a string, packed with the other
   * string limits of its rule into one key.
   */
  readonly redisSortedSet?: boolean;
  /** True when `step` stores one member per request, named after the operation's token. */
  readonly needsToken?: boolean;
  /**
   * `limiter.wait`: these params in reserve mode, where an admitted request may be given a
   * `delayMs` of up to `maxDelayMs` (its slot, taken atomically). Absent, or returning
   * undefined, when the algorithm cannot hand out future slots: a waiter then retries.
   */
  reserving?(params: P, maxDelayMs: number): P | undefined;
  /**
   * True when a denial of a cost-1 request holds, with nothing else changing, until
   * `retryAfterMs` has passed: a denial writes no state, while one is in force no consume can
   * commit (only a reset or refund can end it early), it reports `remaining: 0`, and
   * `retryAfterMs`/`resetAfterMs` count down one for one with the clock. The local deny cache
   * serves only rules whose every algorithm says so.
   */
  readonly denialHoldsUntilRetry?: boolean;
  /**
   * True when how long a state must be kept (`ttlMs`) depends on counts or rates that may be
   * chosen per call (`withLimits`): past that time the state reads as no state only under the
   * values that wrote it. Read under other values, a store that has dropped it (the memory store,
   * Redis on its own clock) answers as for a fresh identity, one that still holds it (Redis keeps
   * states `ttlSlackMs` longer on a client clock) from what it holds: never more than the values
   * in force allow either way, but the stores may then differ.
   */
  readonly ttlDependsOnValues?: boolean;
  /**
   * Gives `cost` back. `next` is the state left behind (undefined: nothing to give back),
   * kept `ttlMs` (<= 0: delete it); the outcome is what a request of cost 1 would now get.
   * With `charge`, at most what that charge still holds at `nowMs` (nothing once it expired).
   * Without `refund` an algorithm cannot give capacity back and a refund reports a peek.
   */
  refund?(state: S | undefined, nowMs: number, params: P, cost: number, charge?: Charge): StepResult<S>;
  /**
   * Charges `cost` even beyond the limit, never refusing (work already done: the next caller
   * pays). `next` is the state left behind, kept `ttlMs`; the outcome is what a request of cost 1
   * would now get. `token` names members as `step`'s does. Without `penalty` (a concurrency
   * limit counts requests in flight, not work done) a penalty reports a peek.
   */
  penalty?(state: S | undefined, nowMs: number, params: P, cost: number, token: string): StepResult<S>;
}

// biome-ignore lint/suspicious/noExplicitAny: the registry holds algorithms of every param, state and field type
export type AnyAlgorithm = Algorithm<any, any, any>;
