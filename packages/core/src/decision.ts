import type { Charge, Outcome, Policy } from './algorithms/types.js';
import type { BoundLimit, StoreOperation, StoreResult } from './stores/store.js';

/** What a decision reports about a limit regardless of state; computed once per limiter. */
export interface LimitInfo {
  name: string;
  limit: number;
  policy: Policy;
  /** Units a request of this cost takes from the limit (a lease takes one slot whatever the cost). */
  unitsTaken: (cost: number) => number;
  /** What a peek of an identity with no state gets at `nowMs`. */
  fresh: (nowMs: number) => Outcome;
}

export function limitInfo({ name, algorithm, params }: BoundLimit): LimitInfo {
  const unitsTaken = algorithm.unitsTaken?.bind(algorithm) ?? ((cost: number) => cost);
  const fresh = (nowMs: number): Outcome => algorithm.step(undefined, nowMs, params, 1, '');
  return { name, limit: algorithm.limit(params), policy: algorithm.policy(params), unitsTaken, fresh };
}

/** One limit's part in a decision. */
export interface LimitDecision extends Outcome {
  name: string;
  /** The most that can pass at once (burst, capacity or window limit). */
  limit: number;
  /** For `RateLimit-Policy`: `quota` per `windowMs`. */
  policy: Policy;
}

/** A slot of a `concurrency` limit held by an admitted request: give it back with `release`. */
export interface Lease {
  /** The identity the slot was taken for. */
  readonly key: string;
  /** Unique to this lease, across processes: the member stored for it. */
  readonly id: string;
}

/**
 * Who made a decision: `store` (the normal case), `cache` (the local deny cache, repeating a
 * denial the store gave), `lease` (capacity a LeasingStore leased from the store, already
 * charged there), `fallback` (the fallback limiter, store unavailable), `policy` (the
 * failure mode `onStoreError: 'open' | 'closed'`, store unavailable; the value keeps its 1.x name).
 */
export type DecisionSource = 'store' | 'cache' | 'lease' | 'fallback' | 'policy';

/** Shadow mode: what the rule decided, while the caller is let through regardless. */
export interface ShadowVerdict {
  allowed: boolean;
  retryAfterMs: number;
  delayMs: number;
}

export interface Decision {
  /** Consume: whether it was admitted. Peek, refund, reset, release: whether a request of cost 1 would be now. */
  allowed: boolean;
  /** Of the limit reported: the most restrictive one (lowest remaining; when denied, longest retry). */
  limit: number;
  /**
   * Units left now: after an admitted consume, what it left; for a peek, refund, reset or release,
   * what the state holds at that moment (rate-limiter-flexible's `remainingPoints`).
   */
  remaining: number;
  /** Until the limit is back to full; Infinity for a count that never resets (`window: 'forever'`). */
  resetAfterMs: number;
  /**
   * 0 when allowed; Infinity when the request can never pass under these limits: a cost above what
   * the limit admits at once, a limit of 0, a count that never resets spent.
   */
  retryAfterMs: number;
  /** Shaping: hold the request this long, then pass it on. 0 when not shaped. */
  delayMs: number;
  /** Name of the limit reported. */
  limitName: string;
  /** Every limit of the rule, in the order they were declared. */
  limits: LimitDecision[];
  /** Present when a consume was admitted by a rule with a `concurrency` limit: the slot it holds. */
  lease?: Lease;
  source: DecisionSource;
  /** Present only on a limiter in shadow mode: `allowed` is then always true and `delayMs` 0. */
  shadow?: ShadowVerdict;
  /**
   * When it was decided, in epoch ms of the limiter's clock (`options.clock`, else `Date.now`),
   * read as the answer came (from the store, or the deny cache, fallback or failure mode in its
   * place): `resetAfterMs` and `retryAfterMs` count from here. A RedisStore deciding on server time
   * does not report that time: this is still the local clock.
   */
  decidedAtMs: number;
  /**
   * Present when the store admitted a consume and charged for it: what it took, when. Pass the
   * decision to `limiter.refund(key, { charge: decision })` to give back only what that charge
   * still holds (nothing once its window, period or bucket state has passed).
   */
  charge?: Charge;
  /**
   * Present on the store's answer to a peek or a reset. A peek: whether the store holds state for
   * the key that still counts (`false`: never seen, expired, or back to what a fresh identity
   * gets; the other fields are then a fresh identity's). A reset: whether it cleared any state.
   */
  found?: boolean;
}

/** Folds the per-limit outcomes of one store operation, answered at `decidedAtMs`, into the decision the caller sees. */
export function toDecision(operation: StoreOperation, stored: StoreResult, infos: readonly LimitInfo[], decidedAtMs: number): Decision {
  const { kind, cost, token } = operation;
  const costs = ownCosts(operation.costs, infos.length);
  const storeNowMs = stored.decidedAtMs ?? operation.nowMs ?? decidedAtMs;
  // A reset's outcomes are what it cleared: its decision is a fresh identity's.
  const result = kind === 'reset' ? { ...stored, outcomes: infos.map((info) => info.fresh(storeNowMs)) } : stored;
  // Dated on the store's timeline, which a refund of it is decided on too; a lease's charge is the lease's.
  const charged = stored.leased?.token ?? token;
  const charge: Charge | undefined = !result.committed
    ? undefined
    : costs === undefined
      ? { atMs: storeNowMs, cost, token: charged }
      : { atMs: storeNowMs, cost: Math.max(...costs), token: charged, costs };
  const decision =
    infos.length === 1
      ? oneLimitDecision(kind, result.committed, result.outcomes[0]!, infos[0]!, decidedAtMs, charge, costs?.[0] ?? cost)
      : multiLimitDecision(kind, result, infos, cost, costs, decidedAtMs);
  if (infos.length > 1 && charge !== undefined) decision.charge = charge;
  if (stored.leased !== undefined) decision.source = 'lease';
  const block = result.outcomes[infos.length];
  if (block !== undefined && !block.allowed) blocked(decision, block);
  if (stored.found !== undefined) decision.found = stillCounts(stored, infos, storeNowMs);
  return decision;
}

/** An operation's costs per limit, of the rule's own limits: its block, after them, takes none. */
function ownCosts(costs: readonly number[] | undefined, limits: number): readonly number[] | undefined {
  return costs === undefined || costs.length === limits ? costs : costs.slice(0, limits);
}

/** A decision while the rule's block (its outcome after the limits') is in force: refused until it ends. */
function blocked(decision: Decision, block: Outcome): void {
  decision.allowed = false;
  decision.remaining = 0;
  decision.delayMs = 0;
  decision.retryAfterMs = Math.max(decision.retryAfterMs, block.retryAfterMs);
  decision.resetAfterMs = Math.max(decision.resetAfterMs, block.resetAfterMs);
}

/**
 * A peek's or reset's `found`: the store held state for the identity and it still counted, i.e.
 * some limit (or the rule's block) answered other than it would for no state (a state past its
 * time, which a store may keep a while, answers as none).
 */
function stillCounts(result: StoreResult, infos: readonly LimitInfo[], nowMs: number): boolean {
  return (
    result.found === true &&
    result.outcomes.some((outcome, i) => (i < infos.length ? !sameOutcome(outcome, infos[i]!.fresh(nowMs)) : !outcome.allowed))
  );
}

function sameOutcome(a: Outcome, b: Outcome): boolean {
  return (
    a.allowed === b.allowed &&
    a.remaining === b.remaining &&
    a.resetAfterMs === b.resetAfterMs &&
    a.retryAfterMs === b.retryAfterMs &&
    a.delayMs === b.delayMs
  );
}

/**
 * The decision of a single-limit rule, with nothing to fold: `outcome` is its limit's, `committed`
 * whether a consume was admitted and written, `charge` what it was charged (when committed), `cost`
 * what the operation asked of the limit.
 */
export function oneLimitDecision(
  kind: StoreOperation['kind'],
  committed: boolean,
  outcome: Outcome,
  info: LimitInfo,
  decidedAtMs: number,
  charge: Charge | undefined,
  cost: number,
): Decision {
  const { name, limit, policy } = info;
  const allowed = kind === 'consume' ? committed : outcome.allowed;
  const retryAfterMs = allowed ? 0 : outcome.retryAfterMs;
  const delayMs = allowed ? outcome.delayMs : 0;
  const { resetAfterMs } = outcome;
  const remaining =
    kind !== 'consume' ? leftNow(outcome, info) : allowed || !outcome.allowed ? outcome.remaining : untaken(outcome, info, cost);
  const limits: LimitDecision[] = [{ name, limit, policy, allowed, remaining, resetAfterMs, retryAfterMs, delayMs: outcome.delayMs }];
  const source = 'store';
  // One literal per case, the charge written with the rest: adding it afterwards would grow the object.
  return charge !== undefined
    ? { allowed, limit, remaining, resetAfterMs, retryAfterMs, delayMs, limitName: name, limits, source, decidedAtMs, charge }
    : { allowed, limit, remaining, resetAfterMs, retryAfterMs, delayMs, limitName: name, limits, source, decidedAtMs };
}

/**
 * The decision of a consume of `cost` on a single-limit rule with no block, committed exactly when
 * its limit's `outcome` allows it: what `oneLimitDecision` answers then, charge included.
 */
export function consumedDecision(
  outcome: Outcome,
  { name, limit, policy }: LimitInfo,
  decidedAtMs: number,
  cost: number,
  token: string,
): Decision {
  const { allowed, remaining, resetAfterMs, delayMs } = outcome;
  const retryAfterMs = allowed ? 0 : outcome.retryAfterMs;
  const limits: LimitDecision[] = [{ name, limit, policy, allowed, remaining, resetAfterMs, retryAfterMs, delayMs }];
  const source = 'store';
  if (!allowed) return { allowed, limit, remaining, resetAfterMs, retryAfterMs, delayMs: 0, limitName: name, limits, source, decidedAtMs };
  const charge = { atMs: decidedAtMs, cost, token };
  return { allowed, limit, remaining, resetAfterMs, retryAfterMs, delayMs, limitName: name, limits, source, decidedAtMs, charge };
}

function multiLimitDecision(
  kind: StoreOperation['kind'],
  result: StoreResult,
  infos: readonly LimitInfo[],
  cost: number,
  costs: readonly number[] | undefined,
  decidedAtMs: number,
): Decision {
  const parts: LimitDecision[] = [];
  let reported = 0;
  let delayMs = 0;
  const allowed = kind === 'consume' ? result.committed : result.outcomes.every((o) => o.allowed);
  for (let i = 0; i < infos.length; i++) {
    const outcome = result.outcomes[i]!;
    const { name, limit, policy } = infos[i]!;
    const remaining =
      kind !== 'consume'
        ? leftNow(outcome, infos[i]!)
        : !allowed && outcome.allowed
          ? untaken(outcome, infos[i]!, costs?.[i] ?? cost)
          : outcome.remaining;
    parts.push({
      name,
      limit,
      policy,
      allowed: outcome.allowed,
      remaining,
      resetAfterMs: outcome.resetAfterMs,
      retryAfterMs: outcome.allowed ? 0 : outcome.retryAfterMs,
      delayMs: outcome.delayMs,
    });
    if (outcome.delayMs > delayMs) delayMs = outcome.delayMs;
    if (i > 0 && isMoreRestrictive(parts[i]!, parts[reported]!, allowed)) reported = i;
  }
  const top = parts[reported]!;
  return {
    allowed,
    limit: top.limit,
    remaining: top.remaining,
    resetAfterMs: top.resetAfterMs,
    retryAfterMs: allowed ? 0 : top.retryAfterMs,
    delayMs: allowed ? delayMs : 0,
    limitName: top.name,
    limits: parts,
    source: 'store',
    decidedAtMs,
  };
}

/** A consume that another limit (or the rule's block) refused left this one untouched: what its step assumed taken is still there. */
function untaken(outcome: Outcome, { limit, unitsTaken }: LimitInfo, cost: number): number {
  return Math.min(limit, outcome.remaining + unitsTaken(cost));
}

/**
 * What a limit holds now, from the outcome of a request of cost 1 that was not made (a peek, or
 * the report after a refund, reset or release): when it would pass, its units are still there.
 */
function leftNow(outcome: Outcome, { limit, unitsTaken }: LimitInfo): number {
  return outcome.allowed ? Math.min(limit, outcome.remaining + unitsTaken(1)) : outcome.remaining;
}

function isMoreRestrictive(candidate: LimitDecision, current: LimitDecision, allowed: boolean): boolean {
  if (!allowed) {
    if (candidate.allowed !== current.allowed) return !candidate.allowed;
    if (candidate.retryAfterMs !== current.retryAfterMs) return candidate.retryAfterMs > current.retryAfterMs;
  }
  if (candidate.remaining !== current.remaining) return candidate.remaining < current.remaining;
  return candidate.resetAfterMs > current.resetAfterMs;
}
