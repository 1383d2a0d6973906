import type { Decision } from '../decision.js';
import { TollgateError } from '../errors.js';
import { refuseUnknownFields } from '../option-fields.js';
import type { BoundLimit } from '../stores/store.js';

export interface DenyCacheOptions {
  /** Most identities held (the oldest entry goes first when full). Default 10,000. */
  maxEntries?: number;
}

/** One entry per option of `DenyCacheOptions`: the compiler refuses this object when one is missing. */
const DENY_CACHE_FIELDS = { maxEntries: true } as const satisfies Record<keyof DenyCacheOptions, true>;

interface Entry {
  decision: Decision;
  /** The limits that denied: a limiter with other values chosen (`withLimits`) shares this cache, not its denials. */
  limits: readonly BoundLimit[];
  /** Local time the store call was made: the store decided no earlier. */
  atMs: number;
  /** Served until here. The last millisecond of the denial goes back to the store: a store
   * computing with fractional rates may round a time up or down by 1 ms, and the cache must
   * never outlast the store's own denial. */
  untilMs: number;
}

/**
 * The local level of two-level limiting (a local check in front of the shared store, as Envoy
 * puts its local rate limit before the global one): once the store has denied an identity
 * until T, this instance answers that identity itself until T.
 */
export class DenyCache {
  private readonly entries = new Map<string, Entry>();
  private readonly maxEntries: number;

  /** `field`: where the options sit, named by errors. */
  constructor(options: DenyCacheOptions, field = 'denyCache') {
    refuseUnknownFields(options, DENY_CACHE_FIELDS, `${field}.`);
    const maxEntries = options.maxEntries ?? 10_000;
    if (!Number.isSafeInteger(maxEntries) || maxEntries < 1) {
      throw new TollgateError(
        'ERR_TOLLGATE_INVALID_OPTION',
        `${field}.maxEntries must be a whole number >= 1 (got ${String(maxEntries)})`,
        `${field}.maxEntries`,
      );
    }
    this.maxEntries = maxEntries;
  }

  /**
   * The cache a limiter's `denyCache` option asks for: none when off, when an algorithm of the
   * rule does not qualify, or by default on a store that decides without a round trip: a memory
   * store, or one that answers locally (`answerNow`, a LeasingStore: it keeps its own refusals,
   * and counts the refused traffic to size its leases). Errors name `field`.
   */
  static forRule(
    option: DenyCacheOptions | boolean | undefined,
    decidesLocally: boolean,
    limits: readonly BoundLimit[],
    field = 'denyCache',
  ): DenyCache | undefined {
    if (option !== undefined && typeof option !== 'boolean' && (typeof option !== 'object' || option === null)) {
      throw new TollgateError('ERR_TOLLGATE_INVALID_OPTION', `${field} must be true, false or { maxEntries }`, field);
    }
    // Checked even when unused below: a misspelt option is refused whatever the rule.
    const cache = typeof option === 'object' ? new DenyCache(option, field) : undefined;
    if (option === false || !limits.every((limit) => limit.algorithm.denialHoldsUntilRetry === true)) return undefined;
    if (option === undefined && decidesLocally) return undefined;
    return cache ?? new DenyCache({});
  }

  get size(): number {
    return this.entries.size;
  }

  /** The store's denial of a cost-1 consume of `key` by `limits`, as the store would give it at `nowMs`. */
  get(key: string, nowMs: number, limits: readonly BoundLimit[]): Decision | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined || entry.limits !== limits) return undefined;
    if (nowMs >= entry.untilMs) {
      this.entries.delete(key);
      return undefined;
    }
    return countDown(entry.decision, nowMs - entry.atMs, nowMs);
  }

  /** Remembers a store denial of a cost-1 consume by `limits` made at local time `atMs`. */
  remember(key: string, decision: Decision, atMs: number, limits: readonly BoundLimit[]): void {
    if (decision.allowed || !Number.isFinite(decision.retryAfterMs) || decision.retryAfterMs <= 1) return;
    this.entries.delete(key);
    if (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
    this.entries.set(key, { decision, limits, atMs, untilMs: atMs + decision.retryAfterMs - 1 });
  }

  forget(key: string): void {
    this.entries.delete(key);
  }
}

function countDown(decision: Decision, elapsedMs: number, nowMs: number): Decision {
  const less = (ms: number) => Math.max(0, ms - elapsedMs);
  return {
    ...decision,
    resetAfterMs: less(decision.resetAfterMs),
    retryAfterMs: less(decision.retryAfterMs),
    limits: decision.limits.map((part) => ({ ...part, resetAfterMs: less(part.resetAfterMs), retryAfterMs: less(part.retryAfterMs) })),
    source: 'cache',
    decidedAtMs: nowMs,
  };
}
