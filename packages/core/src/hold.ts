import { costOf, HOLD_FIELDS } from './consume-options.js';
import type { Decision } from './decision.js';
import { parseDuration } from './duration.js';
import { invalidOption } from './errors.js';
import type { LimiterCalls } from './limiter-calls.js';
import type { LimiterConfig } from './limiter-config.js';
import type { Hold, HoldOptions, HoldStatus } from './limiter-types.js';
import { type Cost, limitCosts } from './units.js';

/** How long a hold may wait for its settle when its options give no `ttl`: 10 minutes. */
export const DEFAULT_HOLD_TTL_MS = 600_000;

/**
 * Charges the estimate `options.cost` as a consume does (all limits or none), and returns the
 * hold that settles it; `released` hears of the lease its settle gives back (waiters queue on
 * it). Rejects with what `consume` would reject with, or a bad `ttl`.
 */
export async function openHold(
  calls: LimiterCalls,
  config: LimiterConfig,
  key: string,
  options: HoldOptions | undefined,
  released: (key: string) => void,
): Promise<Hold> {
  const { limits } = config;
  const estimate = costOf(options, HOLD_FIELDS, limits);
  const ttlMs = holdTtl(options?.ttl);
  const charged = typeof estimate === 'number' ? limits.map(() => estimate) : estimate;
  const decision = await calls.consume(key, Math.max(...charged), limits, typeof estimate === 'number' ? undefined : estimate);
  return new StoreHold(calls, config, key, decision, charged, ttlMs, released);
}

function holdTtl(ttl: unknown): number {
  if (ttl === undefined) return DEFAULT_HOLD_TTL_MS;
  try {
    return parseDuration(ttl, 'ttl');
  } catch {
    throw invalidOption('ttl', "must be a duration such as 30000, '30s' or '10m'", ttl);
  }
}

class StoreHold implements Hold {
  status: HoldStatus;

  constructor(
    private readonly calls: LimiterCalls,
    private readonly config: LimiterConfig,
    readonly key: string,
    readonly decision: Decision,
    /** What the hold's consume charged each limit. */
    private readonly charged: readonly number[],
    private readonly ttlMs: number,
    private readonly released: (key: string) => void,
  ) {
    // Admitted without a charge in this store (the failure mode, a fallback limiter's, shadow mode
    // over a denial): nothing here to settle.
    const chargedHere = decision.charge !== undefined && decision.source === 'store';
    this.status = chargedHere ? 'open' : decision.allowed ? 'uncharged' : 'denied';
  }

  settle(actual: Cost): Promise<Decision> {
    let costs: readonly number[];
    try {
      const given = limitCosts(actual, this.config.limits, 'actual', 0);
      costs = typeof given === 'number' ? this.charged.map(() => given) : given;
    } catch (error) {
      return Promise.reject(error);
    }
    return this.close('settled', costs);
  }

  cancel(): Promise<Decision> {
    return this.close(
      'cancelled',
      this.charged.map(() => 0),
    );
  }

  /** Settles at `costs` once; after the TTL, or when not open, changes nothing and reports a peek. */
  private close(status: HoldStatus, costs: readonly number[]): Promise<Decision> {
    const { charge } = this.decision;
    if (this.status === 'open' && this.config.now() >= this.decision.decidedAtMs + this.ttlMs) this.status = 'expired';
    if (this.status !== 'open' || charge === undefined) return this.calls.run('peek', this.key, 1);
    this.status = status;
    const settled = this.calls.settle(this.key, charge, this.charged, costs);
    const { lease } = this.decision;
    if (lease === undefined) return settled;
    return settled.then((decision) => {
      this.released(lease.key);
      return decision;
    });
  }
}
