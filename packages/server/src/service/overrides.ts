import { createLimiter, type Limiter, policyHeader } from '@tollgate/core';
import type { CompileContext } from '../config/rate-limit.js';
import { type RateLimitUnit, UNIT_MS } from '../config/units.js';

/** A limit a request brought (`RateLimitDescriptor.limit`), as the service enforces it. */
export interface OverrideLimit {
  /** Undefined for `requests_per_unit: 0`, which nothing passes. */
  readonly limiter: Limiter | undefined;
  readonly configured: { name: string; requests_per_unit: number; unit: RateLimitUnit };
  readonly policy: string;
}

/** Most override limits kept at once: a client choosing limits at will cannot make the service hold more. */
const KEPT = 256;

/**
 * The limiters of request-level limit overrides, built on first use: `requests_per_unit` per
 * `unit` in a fixed window, as envoyproxy/ratelimit counts them. All overrides of one unit share
 * one count per descriptor (a changed `requests_per_unit` keeps what was counted), as there.
 */
export class OverrideLimits {
  private readonly kept = new Map<string, OverrideLimit>();

  constructor(
    private readonly context: CompileContext,
    private readonly options: Record<string, unknown>,
  ) {}

  get(requestsPerUnit: number, unit: RateLimitUnit): OverrideLimit {
    const id = `${requestsPerUnit}/${unit}`;
    let limit = this.kept.get(id);
    if (limit === undefined) {
      if (this.kept.size >= KEPT) this.kept.clear();
      limit = this.build(requestsPerUnit, unit);
      this.kept.set(id, limit);
    }
    return limit;
  }

  private build(requestsPerUnit: number, unit: RateLimitUnit): OverrideLimit {
    const { store, clock, events, prefix } = this.context;
    const name = `override-${unit.toLowerCase()}`;
    const configured = { name, requests_per_unit: requestsPerUnit, unit };
    if (requestsPerUnit === 0) return { limiter: undefined, configured, policy: '' };
    const limiter = createLimiter({
      ...this.options,
      name,
      algorithm: 'fixed-window',
      limit: requestsPerUnit,
      window: UNIT_MS[unit],
      store,
      prefix: `${prefix}:override:${unit}`,
      rule: `override:${id(requestsPerUnit, unit)}`,
      ...(clock ? { clock } : {}),
      ...(events ? { events } : {}),
    });
    return { limiter, configured, policy: policyHeader(limiter.limits) };
  }
}

function id(requestsPerUnit: number, unit: RateLimitUnit): string {
  return `${requestsPerUnit}/${unit.toLowerCase()}`;
}
