import type { Keyspace } from '../../keys.js';
import type { BoundLimit, Store, StoreOperation, StoreResult } from '../store.js';
import { HeldLease } from './held-lease.js';
import { KeyRates } from './key-rates.js';
import { type LeasePlan, leasePlanOf } from './leasable.js';
import { type LeasingConfig, type LeasingStoreOptions, parseLeasingOptions } from './leasing-options.js';
import { Refusal } from './refusal.js';

/** A lease answers at least a request of cost 1 and the next one. */
const SMALLEST_LEASE = 2;

/** Units of cost 1 a refused consume's every limit still had. */
function roomOf(result: StoreResult): number {
  return Math.min(...result.outcomes.map((outcome) => outcome.remaining));
}

/** The leases and rates of one limiter's keys (one keyspace list). */
interface KeyTable {
  readonly rates: KeyRates;
  readonly leases: Map<string, HeldLease>;
  /** A lease on its way, per identity: consumes for it wait for it rather than lease again. */
  readonly pending: Map<string, Promise<void>>;
  /** Until when (local ms) a key whose lease failed goes to the store request by request. */
  readonly backOffUntil: Map<string, number>;
  /** Keys whose lease the store refused: refused here until it could pass. */
  readonly refusals: Map<string, Refusal>;
}

/**
 * A store in front of another (a RedisStore) that leases capacity of hot keys: a consume of k
 * units charged at once in the inner store, then spent by this process's consumes on that key
 * without a store call until spent or expired; what is left goes back by a refund bounded by
 * the lease's charge. Rules with a concurrency, leaky-bucket or warm-up limit, or in reserve
 * mode, consumes with a cost per limit, and every other operation, go to the inner store as they are.
 */
export class LeasingStore implements Store {
  private readonly config: LeasingConfig;
  private readonly tables = new Map<readonly Keyspace[], KeyTable>();
  /** Per rule's limits (one per `withLimits` variant): its plan, or null when it cannot lease. */
  private readonly plans = new WeakMap<readonly BoundLimit[], LeasePlan | null>();
  private sweeper: ReturnType<typeof setInterval> | undefined;
  private closed = false;

  constructor(
    private readonly inner: Store,
    options: LeasingStoreOptions = {},
  ) {
    this.config = parseLeasingOptions(options);
  }

  execute(operation: StoreOperation): Promise<StoreResult> {
    if (this.closed || this.config.leaseKeys === 'none') return this.inner.execute(operation);
    const plan = this.planOf(operation.limits);
    // A cost per limit (limits of different units) is decided in the store: a lease counts one cost on every limit.
    if (plan === undefined || operation.costs !== undefined) return this.inner.execute(operation);
    switch (operation.kind) {
      case 'consume':
        return this.consume(operation, plan, this.tableOf(operation.keyspaces));
      case 'refund':
        return this.refund(operation);
      case 'reset':
        // This process's lease and refusal go with the state; other processes' leases end within their TTL.
        this.tables.get(operation.keyspaces)?.leases.delete(operation.identity);
        this.tables.get(operation.keyspaces)?.refusals.delete(operation.identity);
        return this.inner.execute(operation);
      case 'penalty':
        // The key is decided in the store again from the penalty on; other processes' leases end within their TTL.
        this.drop(operation);
        return this.inner.execute(operation);
      default:
        return this.inner.execute(operation);
    }
  }

  /** A consume answered from a live lease of its key, or undefined. */
  answerNow(operation: StoreOperation): StoreResult | undefined {
    if (operation.kind !== 'consume' || operation.costs !== undefined || this.closed) return undefined;
    const table = this.tables.get(operation.keyspaces);
    if (table === undefined) return undefined;
    const lease = table.leases.get(operation.identity);
    const refusal = lease === undefined ? table.refusals.get(operation.identity) : undefined;
    if (refusal !== undefined) {
      if (refusal.limits !== operation.limits) return undefined;
      const nowMs = this.config.clock();
      const refused = refusal.answer(nowMs);
      // Refused traffic is traffic: the next lease is sized for all of it.
      if (refused !== undefined) table.rates.observe(operation.identity, operation.cost, nowMs);
      return refused;
    }
    if (lease === undefined || lease.limits !== operation.limits) return undefined;
    const nowMs = this.config.clock();
    const answer = lease.take(operation.cost, nowMs);
    // Counted here when answered, by `execute` otherwise: the lease size follows the key's whole traffic.
    if (answer !== undefined) table!.rates.observe(operation.identity, operation.cost, nowMs);
    return answer;
  }

  executeGroup(operations: readonly StoreOperation[]): Promise<StoreResult[]> {
    if (this.inner.executeGroup === undefined) return Promise.reject(new Error('the inner store cannot serve groups'));
    return this.inner.executeGroup(operations);
  }

  failureDomain(hashTag: string): string {
    return this.inner.failureDomain?.(hashTag) ?? '';
  }

  /** Gives back what this process's lease of the key holds and forgets its refusal. */
  private drop({ keyspaces, identity }: StoreOperation): void {
    const table = this.tables.get(keyspaces);
    const lease = table?.leases.get(identity);
    table?.refusals.delete(identity);
    if (lease === undefined) return;
    table!.leases.delete(identity);
    void this.giveBack(lease);
  }

  /** Gives back what every lease holds and stops leasing: later calls go to the inner store. */
  async close(): Promise<void> {
    this.closed = true;
    this.stopSweeping();
    const refunds: Promise<unknown>[] = [];
    for (const table of this.tables.values()) {
      for (const lease of table.leases.values()) refunds.push(this.giveBack(lease));
      table.leases.clear();
    }
    await Promise.allSettled(refunds);
  }

  /**
   * Units this store's leases hold now: charged to the inner store and not yet spent nor given
   * back, so invisible to other processes until then (at most `maxShare` of the limit per key).
   */
  heldUnits(): number {
    let held = 0;
    for (const table of this.tables.values()) for (const lease of table.leases.values()) held += lease.unspent;
    return held;
  }

  /** Gives back the leases past their end; runs on a timer while leases are held. */
  sweep(): void {
    const nowMs = this.config.clock();
    let held = 0;
    for (const table of this.tables.values()) {
      for (const [identity, lease] of table.leases) {
        if (nowMs < lease.expiresAtMs) {
          held++;
          continue;
        }
        table.leases.delete(identity);
        void this.giveBack(lease);
      }
    }
    if (held === 0) this.stopSweeping();
  }

  private consume(operation: StoreOperation, plan: LeasePlan, table: KeyTable): Promise<StoreResult> {
    const nowMs = this.config.clock();
    const ratePerMs = table.rates.observe(operation.identity, operation.cost, nowMs);
    return this.consumeObserved(operation, plan, table, nowMs, ratePerMs);
  }

  private consumeObserved(
    operation: StoreOperation,
    plan: LeasePlan,
    table: KeyTable,
    nowMs: number,
    ratePerMs: number,
  ): Promise<StoreResult> {
    const { identity, cost } = operation;
    const lease = table.leases.get(identity);
    if (lease !== undefined) {
      const answer = lease.limits === operation.limits ? lease.take(cost, nowMs) : undefined;
      if (answer !== undefined) return Promise.resolve(answer);
      // Spent, expired, or of other limits (`withLimits`): what it holds goes back, a new one may follow.
      table.leases.delete(identity);
      void this.giveBack(lease);
    }
    const refusal = table.refusals.get(identity);
    if (refusal !== undefined) {
      const refused = refusal.limits === operation.limits ? refusal.answer(nowMs) : undefined;
      if (refused !== undefined) return Promise.resolve(refused);
      table.refusals.delete(identity);
    }
    const pending = table.pending.get(identity);
    if (pending !== undefined) return pending.then(() => this.consumeObserved(operation, plan, table, this.config.clock(), ratePerMs));
    const units = this.leaseSize(plan, ratePerMs, cost, table, identity, nowMs);
    if (units === 0) return this.inner.execute(operation);
    return this.lease(operation, units, plan, table, nowMs);
  }

  /** Units to lease for a consume of `cost` on a key asked `ratePerMs`; 0 when it goes to the store alone. */
  private leaseSize(plan: LeasePlan, ratePerMs: number, cost: number, table: KeyTable, identity: string, nowMs: number): number {
    const { leaseKeys, hotPerMs, leaseTrafficMs } = this.config;
    if (leaseKeys === 'hot' && ratePerMs < hotPerMs) return 0;
    const backOffUntil = table.backOffUntil.get(identity);
    if (backOffUntil !== undefined) {
      if (backOffUntil > nowMs) return 0;
      table.backOffUntil.delete(identity);
    }
    const units = Math.min(plan.maxUnits, Math.max(SMALLEST_LEASE, Math.ceil(ratePerMs * leaseTrafficMs)));
    return units > cost ? units : 0;
  }

  /** Takes a lease of `units` for `operation`'s key, then answers `operation` from it (or from the store when refused). */
  private lease(operation: StoreOperation, units: number, plan: LeasePlan, table: KeyTable, sentAtMs: number): Promise<StoreResult> {
    const { identity } = operation;
    const acquired = this.acquire(operation, units, plan, sentAtMs);
    const settled = acquired.then(
      (outcome) => {
        table.pending.delete(identity);
        if (outcome instanceof HeldLease) {
          table.leases.set(identity, outcome);
          this.startSweeping();
        } else table.refusals.set(identity, outcome.refusal);
      },
      () => {
        table.pending.delete(identity);
        table.backOffUntil.set(identity, this.config.clock() + this.config.ttlMs);
      },
    );
    table.pending.set(identity, settled);
    return acquired.then((outcome) => {
      if (outcome instanceof HeldLease) return outcome.take(operation.cost, sentAtMs) ?? this.inner.execute(operation);
      // Room for this consume: the store decides it. None: the store would refuse it too.
      return (outcome.room < operation.cost ? outcome.refusal.answer(sentAtMs) : undefined) ?? this.inner.execute(operation);
    });
  }

  /**
   * A lease of `units`, or in the same store call of what the store still has when that is a
   * quarter of `units` or more (fewer, it would be spent at once and another asked for) and more
   * than the consume's cost. Refused: the refusal, with the units the store still had (`room`).
   */
  private async acquire(
    operation: StoreOperation,
    units: number,
    plan: LeasePlan,
    sentAtMs: number,
  ): Promise<HeldLease | { room: number; refusal: Refusal }> {
    const minCost = Math.max(SMALLEST_LEASE, Math.ceil(units / 4), operation.cost + 1);
    const result = await this.inner.execute({ ...operation, cost: units, minCost });
    if (!result.committed) return { room: roomOf(result), refusal: this.refusal(operation, result, sentAtMs) };
    // The lease is what the store charged: its refund gives back at most that.
    const leaseOperation: StoreOperation = { ...operation, cost: result.granted ?? units };
    const atMs = result.decidedAtMs ?? leaseOperation.nowMs ?? sentAtMs;
    const expiresAtMs = sentAtMs + plan.horizonMs(result.outcomes, atMs, this.config.ttlMs);
    return new HeldLease(leaseOperation, result.outcomes, atMs, sentAtMs, expiresAtMs);
  }

  /** The key's consumes are refused here until the refused lease could pass, at most a TTL. */
  private refusal(operation: StoreOperation, result: StoreResult, sentAtMs: number): Refusal {
    const retryAfterMs = Math.max(...result.outcomes.map((outcome) => outcome.retryAfterMs));
    return new Refusal(operation.limits, result.outcomes, sentAtMs, sentAtMs + Math.min(this.config.ttlMs, retryAfterMs));
  }

  /** A refund of a decision a live lease answered goes back into the lease; any other goes to the store. */
  private refund(operation: StoreOperation): Promise<StoreResult> {
    const { charge, identity } = operation;
    // Capacity given back may let a lease pass again.
    this.tables.get(operation.keyspaces)?.refusals.delete(identity);
    const lease = this.tables.get(operation.keyspaces)?.leases.get(identity);
    const nowMs = this.config.clock();
    if (charge !== undefined && lease !== undefined && lease.limits === operation.limits && nowMs < lease.expiresAtMs) {
      if (charge.atMs === lease.atMs && charge.token === lease.token) return Promise.resolve(lease.restore(operation.cost, nowMs));
    }
    return this.inner.execute(operation);
  }

  private giveBack(lease: HeldLease): Promise<unknown> {
    const refund = lease.giveBack(lease.hasClientClock ? this.config.clock() : undefined);
    if (refund === undefined) return Promise.resolve();
    // A refund that fails leaves the units charged until their window or period passes: never above the limit.
    return this.inner.execute(refund).catch(() => undefined);
  }

  private planOf(limits: readonly BoundLimit[]): LeasePlan | undefined {
    let plan = this.plans.get(limits);
    if (plan === undefined) {
      plan = leasePlanOf(limits, this.config.maxShare) ?? null;
      this.plans.set(limits, plan);
    }
    return plan ?? undefined;
  }

  private tableOf(keyspaces: readonly Keyspace[]): KeyTable {
    let table = this.tables.get(keyspaces);
    if (table === undefined) {
      table = { rates: new KeyRates(), leases: new Map(), pending: new Map(), backOffUntil: new Map(), refusals: new Map() };
      this.tables.set(keyspaces, table);
    }
    return table;
  }

  private startSweeping(): void {
    if (this.sweeper !== undefined) return;
    this.sweeper = setInterval(() => this.sweep(), this.config.ttlMs);
    this.sweeper.unref?.();
  }

  private stopSweeping(): void {
    clearInterval(this.sweeper);
    this.sweeper = undefined;
  }
}
