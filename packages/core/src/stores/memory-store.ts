import type { Outcome, StepResult } from '../algorithms/types.js';
import { TollgateError } from '../errors.js';
import type { Keyspace } from '../keys.js';
import type { BoundLimit, Clock, Store, StoreOperation, StoreResult } from './store.js';

export interface MemoryStoreOptions {
  /** Epoch-millisecond clock; tests pass a virtual one. Default `Date.now`. */
  clock?: Clock;
  /**
   * Most entries (identity × limit) held at once (default 1,000,000). When full, expired
   * entries go first, then the longest-held ones of the limit being written (first-written
   * order; an update keeps an entry's place): an evicted identity starts afresh.
   */
  maxKeys?: number;
}

interface Entry {
  state: unknown;
  expiresAtMs: number;
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
  /** Per space, the `keys()` iterator eviction resumes from (see `oldestIdentity`). */
  private readonly evictionCursors = new Map<Map<string, Entry>, Iterator<string>>();

  constructor(options: MemoryStoreOptions = {}) {
    this.clock = options.clock ?? Date.now;
    const maxKeys = options.maxKeys ?? 1_000_000;
    if (!Number.isSafeInteger(maxKeys) || maxKeys < 1) {
      throw new TollgateError('ERR_TOLLGATE_INVALID_OPTION', `maxKeys must be a whole number >= 1 (got ${maxKeys})`, 'maxKeys');
    }
    this.maxKeys = maxKeys;
  }

  /** Entries currently held (expired ones not yet swept included). */
  get size(): number {
    return this.entryCount;
  }

  execute(operation: StoreOperation): Promise<StoreResult> {
    return Promise.resolve(this.executeSync(operation));
  }

  /** Same as `execute`, without the promise: the memory store never waits. */
  executeSync(operation: StoreOperation): StoreResult {
    const now = operation.nowMs ?? this.clock();
    const { kind, limits } = operation;
    return limits.length === 1 && (kind === 'consume' || kind === 'peek')
      ? this.executeOne(operation, now)
      : this.executeAll(operation, now);
  }

  /** The common single-limit rule: one lookup, state updated in place. */
  private executeOne({ kind, identity, keyspaces, limits, cost, token }: StoreOperation, now: number): StoreResult {
    const space = this.space(keyspaces[0]!);
    let entry = space.get(identity);
    if (entry !== undefined && entry.expiresAtMs <= now) {
      this.remove(space, identity);
      entry = undefined;
    }
    const limit = limits[0]!;
    const result = limit.algorithm.step(entry?.state, now, limit.params, cost, token);
    const committed = kind === 'consume' && result.allowed;
    if (committed && result.next !== undefined) {
      if (entry === undefined) {
        this.insert(space, identity, result.next, now + result.ttlMs, now);
      } else {
        entry.state = result.next;
        entry.expiresAtMs = now + result.ttlMs;
      }
    }
    return { committed, outcomes: [result] };
  }

  private executeAll({ kind, identity, keyspaces, limits, cost, token }: StoreOperation, now: number): StoreResult {
    const results: StepResult<unknown>[] = [];
    let allAllowed = true;
    for (let i = 0; i < limits.length; i++) {
      const space = this.space(keyspaces[i]!);
      if (kind === 'reset') this.remove(space, identity);
      const limit = limits[i]!;
      if (kind === 'release') this.release(space, identity, now, limit, token);
      const result =
        kind === 'refund'
          ? this.refund(space, identity, limit, now, cost, token)
          : limit.algorithm.step(this.read(space, identity, now), now, limit.params, cost, token);
      if (!result.allowed) allAllowed = false;
      results.push(result);
    }
    const committed = kind === 'consume' && allAllowed;
    if (committed) {
      for (let i = 0; i < results.length; i++) {
        const result = results[i]!;
        if (result.next !== undefined) this.write(this.space(keyspaces[i]!), identity, result.next, now + result.ttlMs, now);
      }
    }
    return { committed, outcomes: results as Outcome[] };
  }

  private space(keyspace: Keyspace): Map<string, Entry> {
    let space = this.spaces.get(keyspace.id);
    if (space === undefined) {
      space = new Map();
      this.spaces.set(keyspace.id, space);
    }
    return space;
  }

  private release(space: Map<string, Entry>, identity: string, now: number, limit: BoundLimit, token: string): void {
    if (limit.algorithm.release === undefined) return;
    const { next, ttlMs } = limit.algorithm.release(this.read(space, identity, now), now, limit.params, token);
    if (next === undefined) this.remove(space, identity);
    else this.write(space, identity, next, now + ttlMs, now);
  }

  /** Writes what the refund leaves at once; an algorithm without `refund` reports a peek. */
  private refund(
    space: Map<string, Entry>,
    identity: string,
    { algorithm, params }: BoundLimit,
    now: number,
    cost: number,
    token: string,
  ): StepResult<unknown> {
    const state = this.read(space, identity, now);
    if (algorithm.refund === undefined) return { ...algorithm.step(state, now, params, 1, token), next: undefined, ttlMs: 0 };
    const result = algorithm.refund(state, now, params, cost);
    if (result.next !== undefined) {
      if (result.ttlMs > 0) this.write(space, identity, result.next, now + result.ttlMs, now);
      else this.remove(space, identity);
    }
    return result;
  }

  private read(space: Map<string, Entry>, identity: string, now: number): unknown {
    const entry = space.get(identity);
    if (entry === undefined) return undefined;
    if (entry.expiresAtMs <= now) {
      this.remove(space, identity);
      return undefined;
    }
    return entry.state;
  }

  private remove(space: Map<string, Entry>, identity: string): void {
    if (space.delete(identity)) this.entryCount--;
  }

  private write(space: Map<string, Entry>, identity: string, state: unknown, expiresAtMs: number, now: number): void {
    const entry = space.get(identity);
    if (entry === undefined) {
      this.insert(space, identity, state, expiresAtMs, now);
    } else {
      entry.state = state;
      entry.expiresAtMs = expiresAtMs;
    }
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
