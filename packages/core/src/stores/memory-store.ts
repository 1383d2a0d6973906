import type { Outcome, StepResult } from '../algorithms/types.js';
import { consumedDecision, type Decision, type LimitInfo } from '../decision.js';
import { TollgateError } from '../errors.js';
import { type Keyspace, packedKeyspace } from '../keys.js';
import { refuseUnknownFields } from '../option-fields.js';
import type { BoundLimit, Clock, Store, StoreOperation, StoreResult } from './store.js';

export interface MemoryStoreOptions {
  /** Epoch-millisecond clock; tests pass a virtual one. Default `Date.now`. */
  clock?: Clock;
  /**
   * Most entries (one per identity and rule, all of its limits together) held at once
   * (default 1,000,000). When full, expired entries go first, then the longest-held ones of the
   * rule being written (first-written order; an update keeps an entry's place): an evicted
   * identity starts afresh.
   */
  maxKeys?: number;
}

interface Entry {
  state: unknown;
  expiresAtMs: number;
}

const MEMORY_STORE_FIELDS = { clock: true, maxKeys: true } as const satisfies Record<keyof MemoryStoreOptions, true>;

/** A multi-limit rule keeps its limits' states in one entry per identity, under the rule's keyspace. */
const ruleKeyspaces = new WeakMap<readonly Keyspace[], Keyspace>();
function ruleKeyspace(keyspaces: readonly Keyspace[]): Keyspace {
  let keyspace = ruleKeyspaces.get(keyspaces);
  if (keyspace === undefined) {
    keyspace = packedKeyspace(keyspaces);
    ruleKeyspaces.set(keyspaces, keyspace);
  }
  return keyspace;
}

/** Entries checked for expiry per new entry: sweeping is spread over traffic, with no timers. */
const SWEEP_PER_INSERT = 2;
const SWEEP_WHEN_FULL = 16;

/**
 * The embedded store: every algorithm's TypeScript step over bounded Maps, one per
 * keyspace (limit of a limiter) keyed by identity, so the hot path builds no strings.
 */
export class MemoryStore implements Store {
  private readonly spaces = new Map<string, Map<string, Entry>>();
  private readonly clock: Clock;
  private readonly maxKeys: number;
  private entryCount = 0;
  private sweepSpaces: Iterator<Map<string, Entry>> | undefined;
  private sweepEntries: Iterator<[string, Entry]> | undefined;
  private sweepSpace: Map<string, Entry> | undefined;
  /** The keyspace looked up last and its space: one limiter's decisions follow each other, and the lookup by id hashes a string. */
  private lastKeyspace: Keyspace | undefined;
  private lastSpace: Map<string, Entry> | undefined;
  /** Per space, the `keys()` iterator eviction resumes from (see `oldestIdentity`). */
  private readonly evictionCursors = new Map<Map<string, Entry>, Iterator<string>>();

  constructor(options: MemoryStoreOptions = {}) {
    refuseUnknownFields(options, MEMORY_STORE_FIELDS);
    this.clock = options.clock ?? Date.now;
    const maxKeys = options.maxKeys ?? 1_000_000;
    if (!Number.isSafeInteger(maxKeys) || maxKeys < 1) {
      throw new TollgateError('ERR_TOLLGATE_INVALID_OPTION', `maxKeys must be a whole number >= 1 (got ${maxKeys})`, 'maxKeys');
    }
    this.maxKeys = maxKeys;
  }

  /**
   * Does nothing: the memory store holds no timer or connection to stop. Teardown code written
   * for express-rate-limit's MemoryStore (`store.shutdown()`) runs as it is.
   */
  shutdown(): void {}

  /** Entries currently held (expired ones not yet swept included). */
  get size(): number {
    return this.entryCount;
  }

  execute(operation: StoreOperation): Promise<StoreResult> {
    return Promise.resolve(this.executeSync(operation));
  }

  executeGroup(operations: readonly StoreOperation[]): Promise<StoreResult[]> {
    return Promise.resolve(this.executeGroupSync(operations));
  }

  /**
   * Same as `executeGroup`, without the promise. Every consume is first checked as a peek of its
   * cost (which writes nothing), then, when all of them pass, made at the same moment.
   */
  executeGroupSync(operations: readonly StoreOperation[]): StoreResult[] {
    const nowMs = operations[0]?.nowMs ?? this.clock();
    const checked = operations.map((operation) => this.executeSync({ ...operation, kind: 'peek', nowMs }));
    if (!checked.every((result) => result.outcomes.every((outcome) => outcome.allowed))) {
      // Answered as refused consumes, which a peek's `found` is not part of.
      return checked.map(({ outcomes, decidedAtMs }) => ({ committed: false, outcomes, decidedAtMs }));
    }
    return operations.map((operation) => this.executeSync({ ...operation, nowMs }));
  }

  /** Same as `execute`, without the promise: the memory store never waits. */
  executeSync(operation: StoreOperation): StoreResult {
    const now = operation.nowMs ?? this.clock();
    const { kind, limits } = operation;
    if (kind === 'reset') return this.reset(operation, now);
    if (kind !== 'consume' && kind !== 'peek') return this.executeAll(operation, now);
    if (operation.minCost !== undefined && kind === 'consume' && operation.costs === undefined) return this.consumeUpTo(operation, now);
    return limits.length === 1 ? this.executeOne(kind, operation, now) : this.executeRule(operation, now);
  }

  /**
   * A consume of `cost` that takes less when `cost` does not pass (see `StoreOperation.minCost`):
   * a peek of `cost` (which writes nothing) says how much passes, then one consume takes it.
   */
  private consumeUpTo(operation: StoreOperation, now: number): StoreResult {
    const whole = { ...operation, minCost: undefined, nowMs: now };
    const granted = grantedCost(operation.cost, operation.minCost!, this.executeSync({ ...whole, kind: 'peek' }).outcomes);
    const result = this.executeSync({ ...whole, cost: granted });
    return result.committed ? { ...result, granted } : result;
  }

  /** The store's clock: the time of an operation that brings none (`nowMs`). */
  now(): number {
    return this.clock();
  }

  /**
   * A consume or peek of `cost` on the single limit of a rule at `now`, answered with its outcome
   * alone (no `StoreResult` to build): a consume is committed, its state written, exactly when the
   * outcome allows it. One lookup, state updated in place.
   */
  private decideOne(
    kind: 'consume' | 'peek',
    keyspace: Keyspace,
    identity: string,
    { algorithm, params }: BoundLimit,
    cost: number,
    token: string,
    now: number,
  ): StepResult<unknown> {
    const space = this.space(keyspace);
    const entry = this.live(space, identity, now);
    const result = algorithm.step(entry?.state, now, params, cost, token);
    if (kind === 'consume' && result.allowed && result.next !== undefined)
      this.keep(space, identity, entry, result.next, now + result.ttlMs, now);
    return result;
  }

  /**
   * A consume of `cost` on the single limit of a rule with no block, at `now`, answered as its
   * decision (`info`: the limit's). The decision is built here, where the step's outcome is made,
   * rather than from `decideOne`'s: the outcome then never leaves the function the optimiser
   * compiles, and is not allocated (about 100 instructions per decision).
   */
  consumeOne(
    keyspace: Keyspace,
    identity: string,
    { algorithm, params }: BoundLimit,
    info: LimitInfo,
    cost: number,
    token: string,
    now: number,
  ): Decision {
    const space = this.space(keyspace);
    const entry = this.live(space, identity, now);
    const outcome = algorithm.step(entry?.state, now, params, cost, token);
    if (outcome.allowed && outcome.next !== undefined) this.keep(space, identity, entry, outcome.next, now + outcome.ttlMs, now);
    return consumedDecision(outcome, info, now, cost, token);
  }

  /** Writes `state` for the identity, in `entry` when it has one (live). */
  private keep(
    space: Map<string, Entry>,
    identity: string,
    entry: Entry | undefined,
    state: unknown,
    expiresAtMs: number,
    now: number,
  ): void {
    if (entry === undefined) {
      this.insert(space, identity, state, expiresAtMs, now);
    } else {
      entry.state = state;
      entry.expiresAtMs = expiresAtMs;
    }
  }

  private executeOne(
    kind: 'consume' | 'peek',
    { identity, keyspaces, limits, cost, costs, token }: StoreOperation,
    now: number,
  ): StoreResult {
    const result = this.decideOne(kind, keyspaces[0]!, identity, limits[0]!, costs?.[0] ?? cost, token, now);
    if (kind === 'peek') {
      // decideOne dropped an expired entry and a peek writes none: what is left is what counts.
      const found = this.space(keyspaces[0]!).has(identity);
      return { committed: false, outcomes: [result], decidedAtMs: now, found };
    }
    return { committed: result.allowed, outcomes: [result], decidedAtMs: now };
  }

  /**
   * A multi-limit consume or peek: one lookup, the rule's states (one per limit, in one entry that
   * lasts as long as its longest-lived limit) updated in place. A limit's state past its own TTL
   * may stay in the entry: every algorithm reads such a state as no state.
   */
  private executeRule({ kind, identity, keyspaces, limits, cost, costs, token }: StoreOperation, now: number): StoreResult {
    const space = this.space(ruleKeyspace(keyspaces));
    const entry = this.live(space, identity, now);
    const held = entry?.state as unknown[] | undefined;
    const results: StepResult<unknown>[] = [];
    let allAllowed = true;
    for (let i = 0; i < limits.length; i++) {
      const { algorithm, params } = limits[i]!;
      const result = algorithm.step(held?.[i], now, params, costs?.[i] ?? cost, token);
      if (!result.allowed) allAllowed = false;
      results.push(result);
    }
    if (kind === 'peek') return { committed: false, outcomes: results as Outcome[], decidedAtMs: now, found: entry !== undefined };
    if (!allAllowed) {
      this.afterDenial(space, identity, entry, limits, results, now);
      return { committed: false, outcomes: results as Outcome[], decidedAtMs: now };
    }
    const states = held ?? new Array<unknown>(limits.length);
    let expiresAtMs = entry?.expiresAtMs ?? 0;
    for (let i = 0; i < results.length; i++) {
      const result = results[i]!;
      if (result.next === undefined) continue;
      states[i] = result.next;
      if (now + result.ttlMs > expiresAtMs) expiresAtMs = now + result.ttlMs;
    }
    if (entry === undefined) this.insert(space, identity, states, expiresAtMs, now);
    else entry.expiresAtMs = expiresAtMs;
    return { committed: true, outcomes: results as Outcome[], decidedAtMs: now };
  }

  /**
   * A refused consume: a limit that writes anyway (a rule's block starting, `afterDenial`) does,
   * and its outcome replaces what it answered. The limits that refused are cleared: they start
   * afresh when the block ends, and report the block's time.
   */
  private afterDenial(
    space: Map<string, Entry>,
    identity: string,
    entry: Entry | undefined,
    limits: StoreOperation['limits'],
    results: StepResult<unknown>[],
    now: number,
  ): void {
    let states: unknown[] | undefined;
    let expiresAtMs = entry?.expiresAtMs ?? 0;
    for (let i = 0; i < limits.length; i++) {
      const { algorithm, params } = limits[i]!;
      if (algorithm.afterDenial === undefined || !results[i]!.allowed) continue;
      const result = algorithm.afterDenial(now, params);
      if (result === undefined) continue;
      states ??= (entry?.state as unknown[] | undefined) ?? new Array<unknown>(limits.length);
      for (let j = 0; j < limits.length; j++) {
        const refused = results[j]!;
        if (j === i || refused.allowed) continue;
        states[j] = undefined;
        const retryAfterMs = refused.retryAfterMs === Infinity ? Infinity : result.retryAfterMs;
        results[j] = { ...refused, resetAfterMs: result.resetAfterMs, retryAfterMs };
      }
      results[i] = result;
      states[i] = result.next;
      expiresAtMs = Math.max(expiresAtMs, now + result.ttlMs);
    }
    if (states !== undefined) this.write(space, identity, states, expiresAtMs, now);
  }

  /** A reset: what the identity's state held (as a peek), then it is gone. */
  private reset({ identity, keyspaces, limits, token }: StoreOperation, now: number): StoreResult {
    const single = limits.length === 1;
    const space = this.space(single ? keyspaces[0]! : ruleKeyspace(keyspaces));
    const entry = this.live(space, identity, now);
    const outcomes = limits.map(({ algorithm, params }, i) =>
      algorithm.step(single ? entry?.state : (entry?.state as unknown[] | undefined)?.[i], now, params, 1, token),
    );
    this.remove(space, identity);
    return { committed: false, outcomes, decidedAtMs: now, found: entry !== undefined };
  }

  /** Release, refund, penalty, settle and block, on one limit or on a multi-limit rule's entry. */
  private executeAll(operation: StoreOperation, now: number): StoreResult {
    const { kind, identity, keyspaces, limits, cost, costs, token, charge } = operation;
    const single = limits.length === 1;
    const space = this.space(single ? keyspaces[0]! : ruleKeyspace(keyspaces));
    const entry = this.live(space, identity, now);
    const states = single ? [entry?.state] : ((entry?.state as unknown[] | undefined)?.slice() ?? new Array<unknown>(limits.length));
    let expiresAtMs = entry?.expiresAtMs ?? 0;
    let changed = false;
    const keep = (i: number, state: unknown, ttlMs: number) => {
      states[i] = ttlMs > 0 ? state : undefined;
      // A shorter TTL than the entry's is harmless: a state past its TTL reads as no state.
      if (ttlMs > 0 && (now + ttlMs > expiresAtMs || single)) expiresAtMs = now + ttlMs;
      changed = true;
    };
    const results: StepResult<unknown>[] = [];
    for (let i = 0; i < limits.length; i++) {
      const { algorithm, params } = limits[i]!;
      if ((kind === 'release' || kind === 'settle') && algorithm.release !== undefined) {
        // A settle gives back the lease its hold took, named by the hold's token.
        const { next, ttlMs } = algorithm.release(states[i], now, params, kind === 'settle' ? charge!.token : token);
        keep(i, next, next === undefined ? 0 : ttlMs);
      }
      if (kind === 'block' && algorithm.blockFor !== undefined) {
        const { next, ttlMs } = algorithm.blockFor(now, cost);
        keep(i, next, ttlMs);
      }
      const written = writtenBy(operation, i, states[i], now);
      if (written !== undefined) {
        if (written.next !== undefined) keep(i, written.next, written.ttlMs);
        results.push(written);
      } else {
        // Without `refund` (`penalty`) an algorithm cannot give capacity back (charge it): it reports a peek.
        const reportsPeek = kind === 'refund' || kind === 'penalty' || kind === 'settle';
        const result = algorithm.step(states[i], now, params, reportsPeek || kind === 'block' ? 1 : (costs?.[i] ?? cost), token);
        results.push(reportsPeek ? { ...result, next: undefined, ttlMs: 0 } : result);
      }
    }
    if (changed) {
      if (states.every((state) => state === undefined)) this.remove(space, identity);
      else this.write(space, identity, single ? states[0] : states, expiresAtMs, now);
    }
    return { committed: false, outcomes: results as Outcome[], decidedAtMs: now };
  }

  private space(keyspace: Keyspace): Map<string, Entry> {
    // Spaces are never dropped, so the one found last for this keyspace is still its space.
    if (keyspace === this.lastKeyspace) return this.lastSpace!;
    let space = this.spaces.get(keyspace.id);
    if (space === undefined) {
      space = new Map();
      this.spaces.set(keyspace.id, space);
    }
    this.lastKeyspace = keyspace;
    this.lastSpace = space;
    return space;
  }

  /** The identity's entry, unless it has expired (then it is removed). */
  private live(space: Map<string, Entry>, identity: string, now: number): Entry | undefined {
    const entry = space.get(identity);
    if (entry === undefined || entry.expiresAtMs > now) return entry;
    this.remove(space, identity);
    return undefined;
  }

  private remove(space: Map<string, Entry>, identity: string): void {
    if (space.delete(identity)) this.entryCount--;
  }

  private write(space: Map<string, Entry>, identity: string, state: unknown, expiresAtMs: number, now: number): void {
    this.keep(space, identity, space.get(identity), state, expiresAtMs, now);
  }

  private insert(space: Map<string, Entry>, identity: string, state: unknown, expiresAtMs: number, now: number): void {
    this.sweep(now, SWEEP_PER_INSERT);
    if (this.entryCount >= this.maxKeys) this.makeRoom(space, now);
    space.set(identity, { state, expiresAtMs });
    this.entryCount++;
  }

  /** Frees a slot: expired entries first, else the longest-held entry of the space being written. */
  private makeRoom(space: Map<string, Entry>, now: number): void {
    this.sweep(now, SWEEP_WHEN_FULL);
    if (this.entryCount < this.maxKeys) return;
    const victimSpace = space.size > 0 ? space : [...this.spaces.values()].find((s) => s.size > 0);
    if (victimSpace === undefined) return;
    const oldest = this.oldestIdentity(victimSpace);
    if (oldest !== undefined) this.remove(victimSpace, oldest);
  }

  /**
   * The space's longest-held identity. A fresh `keys()` iterator walks every slot deleted
   * since the Map last compacted (hundreds of thousands under a flood of new identities), so
   * one iterator per space is kept across evictions: it passes each slot once. Every entry
   * it has passed was evicted, so what it yields next is always the oldest live entry.
   */
  private oldestIdentity(space: Map<string, Entry>): string | undefined {
    let next = this.evictionCursors.get(space)?.next();
    if (next === undefined || next.done) {
      const cursor = space.keys();
      this.evictionCursors.set(space, cursor);
      next = cursor.next();
    }
    return next.done ? undefined : next.value;
  }

  /** Checks the next `count` entries of a cursor that cycles through every space. */
  private sweep(now: number, count: number): void {
    for (let checked = 0; checked < count; ) {
      if (this.sweepEntries === undefined) {
        this.sweepSpaces ??= this.spaces.values();
        const nextSpace = this.sweepSpaces.next();
        if (nextSpace.done) {
          this.sweepSpaces = undefined;
          return;
        }
        this.sweepSpace = nextSpace.value;
        this.sweepEntries = nextSpace.value.entries();
      }
      const next = this.sweepEntries.next();
      if (next.done) {
        this.sweepEntries = undefined;
        continue;
      }
      checked++;
      if (next.value[1].expiresAtMs <= now) this.remove(this.sweepSpace!, next.value[0]);
    }
  }
}

/**
 * What a consume of up to `cost` takes, given the limits' outcomes for `cost`: `cost` when each
 * allows it, else the least a refusing limit still has (`remaining`, in requests of cost 1) when
 * that is `minCost` or more, else `cost` (to be refused). The Lua driver's `granted_cost`.
 */
function grantedCost(cost: number, minCost: number, outcomes: readonly Outcome[]): number {
  let room = cost;
  for (const { allowed, remaining } of outcomes) if (!allowed && remaining < room) room = remaining;
  return room < minCost ? cost : room;
}

/**
 * What a refund, penalty or settle leaves of limit `i`'s state (undefined: the algorithm cannot, or
 * a settle charging what its hold charged changes nothing). A settle gives back the unused part
 * of the hold's charge to limit `i`, or charges the excess even beyond the limit.
 */
function writtenBy(operation: StoreOperation, i: number, state: unknown, now: number): StepResult<unknown> | undefined {
  const { kind, limits, cost, costs, token, charge } = operation;
  const { algorithm, params } = limits[i]!;
  // A refund of costs per limit and a charge gives each limit back what the charge took from it.
  if (kind === 'refund') {
    const limitCharge = costs === undefined || charge === undefined ? charge : { ...charge, cost: costs[i]! };
    return algorithm.refund?.(state, now, params, costs?.[i] ?? cost, limitCharge);
  }
  if (kind === 'penalty') return algorithm.penalty?.(state, now, params, costs?.[i] ?? cost, token);
  if (kind !== 'settle') return undefined;
  const held = operation.charged![i]!;
  const actual = costs![i]!;
  if (actual < held) return algorithm.refund?.(state, now, params, held - actual, { ...charge!, cost: held });
  if (actual > held) return algorithm.penalty?.(state, now, params, actual - held, token);
  return undefined;
}
