import type { Outcome, StepResult } from '../algorithms/types.js';
import { TollgateError } from '../errors.js';
import type { BoundLimit, Clock, Store, StoreOperation, StoreResult } from './store.js';

export interface MemoryStoreOptions {
  /** Epoch-millisecond clock; tests pass a virtual one. Default `Date.now`. */
  clock?: Clock;
  /**
   * Most identities held at once (default 1,000,000). When full, expired entries go
   * first, then the longest-held ones: an evicted identity starts afresh.
   */
  maxKeys?: number;
}

interface Entry {
  state: unknown;
  expiresAtMs: number;
}

/** Entries checked for expiry per write: sweeping is spread over traffic, with no timers. */
const SWEEP_PER_WRITE = 2;
const SWEEP_WHEN_FULL = 64;

/** The embedded store: every algorithm's TypeScript step over a bounded Map. */
export class MemoryStore implements Store {
  private readonly entries = new Map<string, Entry>();
  private readonly clock: Clock;
  private readonly maxKeys: number;
  private sweepCursor: Iterator<[string, Entry]> | undefined;

  constructor(options: MemoryStoreOptions = {}) {
    this.clock = options.clock ?? Date.now;
    const maxKeys = options.maxKeys ?? 1_000_000;
    if (!Number.isSafeInteger(maxKeys) || maxKeys < 1) {
      throw new TollgateError('ERR_TOLLGATE_INVALID_OPTION', `maxKeys must be a whole number >= 1 (got ${maxKeys})`, 'maxKeys');
    }
    this.maxKeys = maxKeys;
  }

  /** Identities currently held (expired ones not yet swept included). */
  get size(): number {
    return this.entries.size;
  }

  execute(operation: StoreOperation): Promise<StoreResult> {
    return Promise.resolve(this.executeSync(operation));
  }

  /** Same as `execute`, without the promise: the memory store never waits. */
  executeSync({ kind, keys, limits, cost, token, nowMs }: StoreOperation): StoreResult {
    const now = nowMs ?? this.clock();
    const results: StepResult<unknown>[] = [];
    let allAllowed = true;
    for (let i = 0; i < limits.length; i++) {
      const key = keys[i] as string;
      if (kind === 'reset') this.entries.delete(key);
      const limit = limits[i]!;
      const result =
        kind === 'refund'
          ? this.refund(key, limit, now, cost, token)
          : limit.algorithm.step(this.read(key, now), now, limit.params, cost, token);
      if (!result.allowed) allAllowed = false;
      results.push(result);
    }
    const committed = kind === 'consume' && allAllowed;
    if (committed) {
      for (let i = 0; i < results.length; i++) {
        const result = results[i]!;
        if (result.next !== undefined) this.write(keys[i] as string, result.next, now + result.ttlMs, now);
      }
    }
    return { committed, outcomes: results as Outcome[] };
  }

  /** Writes what the refund leaves at once; an algorithm without `refund` reports a peek. */
  private refund(key: string, { algorithm, params }: BoundLimit, now: number, cost: number, token: string): StepResult<unknown> {
    const state = this.read(key, now);
    if (algorithm.refund === undefined) return { ...algorithm.step(state, now, params, 1, token), next: undefined, ttlMs: 0 };
    const result = algorithm.refund(state, now, params, cost);
    if (result.next !== undefined) {
      if (result.ttlMs > 0) this.write(key, result.next, now + result.ttlMs, now);
      else this.entries.delete(key);
    }
    return result;
  }

  private read(key: string, now: number): unknown {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.expiresAtMs <= now) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.state;
  }

  private write(key: string, state: unknown, expiresAtMs: number, now: number): void {
    const entry = this.entries.get(key);
    if (entry !== undefined) {
      entry.state = state;
      entry.expiresAtMs = expiresAtMs;
      return;
    }
    this.sweep(now, SWEEP_PER_WRITE);
    if (this.entries.size >= this.maxKeys) this.makeRoom(now);
    this.entries.set(key, { state, expiresAtMs });
  }

  private makeRoom(now: number): void {
    this.sweep(now, SWEEP_WHEN_FULL);
    while (this.entries.size >= this.maxKeys) {
      const oldest = this.entries.keys().next();
      if (oldest.done) return;
      this.entries.delete(oldest.value);
    }
  }

  /** Checks the next `count` entries of a cursor that cycles through the map. */
  private sweep(now: number, count: number): void {
    for (let i = 0; i < count; i++) {
      this.sweepCursor ??= this.entries.entries();
      const next = this.sweepCursor.next();
      if (next.done) {
        this.sweepCursor = undefined;
        return;
      }
      if (next.value[1].expiresAtMs <= now) this.entries.delete(next.value[0]);
    }
  }
}
