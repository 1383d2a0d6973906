import type { Charge } from './algorithms/types.js';
import { type Decision, type LimitInfo, limitInfo, toDecision } from './decision.js';
import { TollgateError } from './errors.js';
import { assertIdentity, encodeIdentity, type Keyspace, keyspacesFor } from './keys.js';
import type { ChosenField, LimiterConfig } from './limiter-config.js';
import { DecisionReport } from './limiter-report.js';
import { GuardedStore, type StoreFailureAnswer } from './resilience/guarded-store.js';
import { MemoryStore } from './stores/memory-store.js';
import type { BoundLimit, OperationKind, StoreOperation, StoreResult } from './stores/store.js';
import { uniqueToken } from './token.js';
import { ReservingLimits } from './wait/reserving-limits.js';

/** Costs per limit of an operation, when its limits are charged differently (see `StoreOperation`). */
type PerLimitCosts = Pick<StoreOperation, 'costs' | 'charged'>;

/** Equal to no key, so the first key is checked too, even undefined. */
const NO_KEY_YET = Symbol('no key yet');

/** The operations of a limiter, as sent to its store, for cost and key already given. */
export class LimiterCalls {
  /** Whether a limit of the rule hands out leases (a concurrency limit). */
  readonly holdsLeases: boolean;
  /** Leases and sliding-log members are named after a token unique to the consume. */
  private readonly needsToken: boolean;
  private readonly keyspaces: readonly Keyspace[];
  /** The memory store never waits nor fails: it is called synchronously, without timeout or breaker. */
  private readonly memory: MemoryStore | undefined;
  private readonly infos: readonly LimitInfo[];
  private readonly decisions: DecisionReport;
  private readonly guarded: GuardedStore;
  /** The rule's limits as they admit at once or not at all (reserve mode given no delay): a group's. */
  private readonly withoutDelay: readonly BoundLimit[];
  /** The config's fields every operation reads, held here: one load each instead of two. */
  private readonly limits: readonly BoundLimit[];
  private readonly clock: LimiterConfig['clock'];
  private readonly keyOf: LimiterConfig['keyOf'];
  private readonly chosenPerCall: LimiterConfig['chosenPerCall'];
  /** The last key checked, the key it is stored under and its encoded identity: a client's requests tend to follow each other. */
  private lastKey: unknown = NO_KEY_YET;
  private lastStored = '';
  private lastIdentity = '';
  private readonly withBlock = new WeakMap<readonly BoundLimit[], readonly BoundLimit[]>();

  constructor(
    private readonly config: LimiterConfig,
    fallback: StoreFailureAnswer,
  ) {
    const { limits, store, block } = config;
    const stored = block === undefined ? limits : [...limits, block];
    this.limits = limits;
    this.clock = config.clock;
    this.keyOf = config.keyOf;
    this.chosenPerCall = config.chosenPerCall;
    this.keyspaces = keyspacesFor(
      config.prefix,
      stored.map((limit) => `${limit.name}:${limit.algorithm.name}`),
    );
    this.infos = limits.map(limitInfo);
    this.holdsLeases = limits.some((limit) => limit.algorithm.release !== undefined);
    this.needsToken = this.holdsLeases || limits.some((limit) => limit.algorithm.needsToken === true);
    this.memory = store instanceof MemoryStore ? store : undefined;
    this.decisions = new DecisionReport(config.rule, config.shadow, config.events);
    this.guarded = new GuardedStore(config, fallback, this.infos, this.decisions, this.stored(limits));
    this.withoutDelay = new ReservingLimits(limits).within(0);
  }

  /**
   * Runs one operation of `cost` for `key` on `checked` (default: every limit of the rule). Every
   * operation comes through here (or `consumeNow`): the key is checked and mapped (`keyOf`) once,
   * and the deny cache, events and leases all see the key as stored.
   */
  run(
    kind: OperationKind,
    key: string,
    cost: number,
    token = '',
    checked: readonly BoundLimit[] = this.limits,
    charge?: Charge,
    perLimit?: PerLimitCosts,
  ): Promise<Decision> {
    try {
      if (this.memory === undefined)
        return this.guarded.call(this.operation(kind, key, cost, token, checked, charge, perLimit), this.lastStored);
      if (kind === 'consume' && perLimit === undefined) return settled(this.consumeInMemory(this.memory, key, cost, token, checked));
      return settled(this.inMemory(this.memory, this.operation(kind, key, cost, token, checked, charge, perLimit), this.lastStored));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** A refund of `cost` of what `charge` took. */
  refund(key: string, cost: number, charge: Charge): Promise<Decision> {
    // A charge of different costs per limit comes back whole, each limit what it was charged.
    const perLimit = charge.costs === undefined ? undefined : { costs: charge.costs };
    return this.run('refund', key, cost, '', this.limits, charge, perLimit);
  }

  /**
   * Charges `cost` to every limit even beyond the limit, never refused (see the store's
   * 'penalty'); named by a token of its own where the rule keeps members per request.
   */
  penalty(key: string, cost: number, costs?: readonly number[]): Promise<Decision> {
    const perLimit = costs === undefined ? undefined : { costs };
    return this.run('penalty', key, cost, this.needsToken ? uniqueToken() : '', this.config.limits, undefined, perLimit);
  }

  /**
   * Replaces what a hold's consume charged each limit (`charged`, by `charge`) by `costs`: per
   * limit, a refund of the unused part or a penalty of the excess, and its lease released.
   */
  settle(key: string, charge: Charge, charged: readonly number[], costs: readonly number[]): Promise<Decision> {
    return this.run('settle', key, 0, this.needsToken ? uniqueToken() : '', this.limits, charge, { costs, charged });
  }

  /**
   * A consume of `cost` (per limit: `costs`, when they differ); the slot of a concurrency limit it
   * took comes back as `decision.lease`, named by the key as stored.
   */
  consume(key: string, cost: number, checked: readonly BoundLimit[] = this.limits, costs?: readonly number[]): Promise<Decision> {
    if (this.needsToken) return this.consumeNamed(key, cost, checked, costs);
    return this.run('consume', key, cost, '', checked, undefined, costs === undefined ? undefined : { costs });
  }

  /** A consume of a rule that names its members or leases after a token of its own. */
  private consumeNamed(key: string, cost: number, checked: readonly BoundLimit[], costs: readonly number[] | undefined): Promise<Decision> {
    const perLimit = costs === undefined ? undefined : { costs };
    const token = uniqueToken();
    const decision = this.run('consume', key, cost, token, checked, undefined, perLimit);
    if (!this.holdsLeases) return decision;
    const stored = this.lastStored;
    return decision.then((admitted) => withLease(admitted, stored, token));
  }

  /** The name of the rule, for messages. */
  get rule(): string {
    return this.config.rule;
  }

  /** Whether `consumeNow` may be called: the store is the memory store, which never waits. */
  get answersNow(): boolean {
    return this.memory !== undefined;
  }

  /** The consume of cost 1 on every limit, decided before this returns (`answersNow` only); throws what `consume` would reject with. */
  consumeNow(key: string): Decision {
    const token = this.needsToken ? uniqueToken() : '';
    const decision = this.consumeInMemory(this.memory!, key, 1, token, this.limits);
    return this.holdsLeases ? withLease(decision, this.lastStored, token) : decision;
  }

  /**
   * A consume of `cost` for `key` as one of a group (`waitAll`), on the rule's limits as they admit
   * with no delay, and the key as stored. A rule holding leases cannot be one.
   */
  groupConsume(key: string, cost: number): { operation: StoreOperation; stored: string } {
    if (this.holdsLeases) {
      throw new TollgateError(
        'ERR_TOLLGATE_INVALID_OPTION',
        `waitAll cannot take the limiter of rule "${this.config.rule}": its concurrency limit hands out leases`,
        'limiter',
      );
    }
    const token = this.needsToken ? uniqueToken() : '';
    return { operation: this.operation('consume', key, cost, token, this.withoutDelay), stored: this.lastStored };
  }

  /** The decision, as `consume` reports it, of a group's result for an operation of `groupConsume`. */
  groupDecision(operation: StoreOperation, stored: string, result: StoreResult): Decision {
    const verdict = toDecision(operation, result, this.infos, result.decidedAtMs ?? this.config.now());
    return this.decisions.report(operation.kind, operation.cost, stored, verdict, 0);
  }

  private operation(
    kind: OperationKind,
    key: string,
    cost: number,
    token: string,
    checked: readonly BoundLimit[],
    charge?: Charge,
    perLimit?: PerLimitCosts,
  ): StoreOperation {
    if (this.chosenPerCall !== undefined && kind !== 'reset' && kind !== 'release') throw limitNotChosen(this.chosenPerCall);
    const identity = this.identityOf(key);
    const limits = this.stored(checked);
    const operation = { kind, identity, keyspaces: this.keyspaces, limits, cost, token, nowMs: this.clock?.(), charge };
    return perLimit === undefined ? operation : { ...operation, ...this.withBlockCost(perLimit) };
  }

  /** The limits an operation on `checked` sends the store: with the rule's block after them, when it has one. */
  private stored(checked: readonly BoundLimit[]): readonly BoundLimit[] {
    const { block } = this.config;
    if (block === undefined) return checked;
    let stored = this.withBlock.get(checked);
    if (stored === undefined) {
      // The same array for the same limits: a RedisStore sends a rule once per batch by it.
      stored = [...checked, block];
      this.withBlock.set(checked, stored);
    }
    return stored;
  }

  /** Costs per limit with the rule's block (which takes nothing) after the limits', when it has one. */
  private withBlockCost(perLimit: PerLimitCosts): PerLimitCosts {
    if (this.config.block === undefined) return perLimit;
    const { costs, charged } = perLimit;
    return { costs: costs && [...costs, 0], charged: charged && [...charged, 0] };
  }

  /** The encoded identity of `key`; `lastStored` is then the key as stored (`keyOf` applied). */
  private identityOf(key: string): string {
    if (key !== this.lastKey) {
      assertIdentity(key);
      const stored = this.keyOf === undefined ? key : this.keyOf(key);
      this.lastIdentity = encodeIdentity(stored);
      this.lastStored = stored;
      this.lastKey = key;
    }
    return this.lastIdentity;
  }

  /** A consume of `cost` (the same on every limit) on the memory store. */
  private consumeInMemory(memory: MemoryStore, key: string, cost: number, token: string, checked: readonly BoundLimit[]): Decision {
    // A single limit (and no block: that is a second) needs no operation to send nor StoreResult to fold.
    if (checked.length !== 1 || this.config.block !== undefined) {
      return this.inMemory(memory, this.operation('consume', key, cost, token, checked), this.lastStored);
    }
    if (this.chosenPerCall !== undefined) throw limitNotChosen(this.chosenPerCall);
    const identity = this.identityOf(key);
    // The memory store reads the time it decides at: no second clock read per decision.
    const now = this.clock?.() ?? memory.now();
    const verdict = memory.consumeOne(this.keyspaces[0]!, identity, checked[0]!, this.infos[0]!, cost, token, now);
    return this.decisions.report('consume', cost, this.lastStored, verdict, 0);
  }

  private inMemory(memory: MemoryStore, operation: StoreOperation, key: string): Decision {
    const result = memory.executeSync(operation);
    const verdict = toDecision(operation, result, this.infos, result.decidedAtMs ?? this.config.now());
    return this.decisions.report(operation.kind, operation.cost, key, verdict, 0);
  }
}

/**
 * The error of an operation that needs the rule's values on a limiter whose values are chosen per
 * request: they hold a placeholder until `withLimits` gives them.
 */
function limitNotChosen(chosen: readonly ChosenField[]): TollgateError {
  const { field, path } = chosen[0]!;
  return new TollgateError(
    'ERR_TOLLGATE_LIMIT_NOT_CHOSEN',
    `${path} is chosen per request: withLimits({ ${field}: <value> }) gives the limiter of a value (reset and release work as they are)`,
    path,
  );
}

/**
 * A promise fulfilled with `decision`. The branch on one of its fields is for the optimising
 * compiler: once it has checked the object's shape it knows there is no `then` to look up, and
 * fulfils the promise without the generic thenable lookup (about 300 instructions, a tenth of a
 * memory-store decision). Both branches do the same.
 */
function settled(decision: Decision): Promise<Decision> {
  return decision.allowed ? Promise.resolve(decision) : Promise.resolve(decision);
}

/** Only a store decision holds a slot: policy and fallback answers took none here. */
function withLease(admitted: Decision, key: string, token: string): Decision {
  if (admitted.allowed && admitted.source === 'store') admitted.lease = { key, id: token };
  return admitted;
}
