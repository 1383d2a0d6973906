import { invalidOption, TollgateError } from '../errors.js';
import { refuseUnknownFields } from '../option-fields.js';
import type { Clock } from '../stores/store.js';

export type BreakerState = 'closed' | 'open' | 'half-open';

/** One entry per option of `BreakerOptions`: the compiler refuses this object when one is missing. */
const BREAKER_FIELDS = { failureThreshold: true, coolDownMs: true } as const satisfies Record<keyof BreakerOptions, true>;

export interface BreakerOptions {
  /** Consecutive store failures (errors or timeouts) that open the breaker. Default 5. */
  failureThreshold?: number;
  /** How long the store is left alone once open, before one probe call. Default 1000 ms. */
  coolDownMs?: number;
}

/**
 * Circuit breaker around the store: closed (calls go through), open (none do, until
 * `coolDownMs` has passed), half-open (exactly one probe is in flight; its result closes
 * or reopens the breaker).
 */
export class Breaker {
  readonly failureThreshold: number;
  readonly coolDownMs: number;
  private current: BreakerState = 'closed';
  private failures = 0;
  /** When the current cool-down started. */
  private openedAtMs = 0;
  /** When the breaker left the closed state. */
  private openSinceMs = 0;

  /** `field`: where the options sit, named by errors. */
  constructor(
    options: BreakerOptions,
    private readonly clock: Clock,
    field = 'breaker',
  ) {
    if (typeof options !== 'object' || options === null) {
      throw invalidOption(field, 'must be false or { failureThreshold, coolDownMs }', options);
    }
    refuseUnknownFields(options, BREAKER_FIELDS, `${field}.`);
    this.failureThreshold = wholeNumber(options.failureThreshold ?? 5, `${field}.failureThreshold`, 1);
    this.coolDownMs = wholeNumber(options.coolDownMs ?? 1000, `${field}.coolDownMs`, 1);
  }

  get state(): BreakerState {
    return this.current;
  }

  /** Whether a store call may be made now; past the cool-down the caller becomes the probe. */
  admit(): boolean {
    if (this.current === 'closed') return true;
    if (this.current === 'half-open') return false;
    if (this.clock() - this.openedAtMs < this.coolDownMs) return false;
    this.current = 'half-open';
    return true;
  }

  /** Until the next probe may be made (0 when closed). */
  retryAfterMs(): number {
    if (this.current === 'closed') return 0;
    return Math.max(1, this.coolDownMs - (this.clock() - this.openedAtMs));
  }

  /** Records a store answer; returns how long the breaker had been open when this closes it. */
  succeeded(): number | undefined {
    this.failures = 0;
    if (this.current === 'closed') return undefined;
    this.current = 'closed';
    return this.clock() - this.openSinceMs;
  }

  /** Records a store failure; returns the failure count when this opens a closed breaker. */
  failed(): number | undefined {
    this.failures++;
    if (this.current === 'half-open') {
      this.openedAtMs = this.clock();
      this.current = 'open';
      return undefined;
    }
    if (this.current === 'open' || this.failures < this.failureThreshold) return undefined;
    this.current = 'open';
    this.openedAtMs = this.clock();
    this.openSinceMs = this.openedAtMs;
    return this.failures;
  }
}

function wholeNumber(value: unknown, field: string, min: number): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min) {
    throw new TollgateError('ERR_TOLLGATE_INVALID_OPTION', `${field} must be a whole number >= ${min} (got ${String(value)})`, field);
  }
  return value;
}

/**
 * One breaker per failure domain of the store (a Cluster node, see `Store.failureDomain`): a
 * failing node opens only its own breaker, and identities served by healthy nodes keep being
 * decided by Redis. A store without domains has one.
 */
export class Breakers {
  readonly coolDownMs: number;
  private readonly byDomain = new Map<string, Breaker>();

  constructor(
    private readonly options: BreakerOptions,
    private readonly clock: Clock,
    field = 'breaker',
  ) {
    // Validates the options once, up front, naming them under `field`.
    const first = new Breaker(options, clock, field);
    this.byDomain.set('', first);
    this.coolDownMs = first.coolDownMs;
  }

  for(domain: string): Breaker {
    let breaker = this.byDomain.get(domain);
    if (!breaker) {
      breaker = new Breaker(this.options, this.clock);
      this.byDomain.set(domain, breaker);
    }
    return breaker;
  }

  /** The least available state over every domain: `open` when any breaker is open. */
  get state(): BreakerState {
    let state: BreakerState = 'closed';
    for (const breaker of this.byDomain.values()) {
      if (breaker.state === 'open') return 'open';
      if (breaker.state === 'half-open') state = 'half-open';
    }
    return state;
  }
}
