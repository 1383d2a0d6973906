import { concurrencyLua } from '../../lua/sources.generated.js';
import { span, wholeNumber } from '../fields.js';
import type { Algorithm, StepResult } from '../types.js';

export interface ConcurrencyParams {
  limit: number;
  leaseTtlMs: number;
}

const CONCURRENCY_FIELDS = { limit: 'count', leaseTtl: 'duration' } as const;

/** Lease id → expiry (epoch ms), as the Redis sorted set holds them (member → score). */
export type ConcurrencyState = ReadonlyMap<string, number>;

/** Leases still live at `nowMs`, expiries ascending; expired ones are as good as released. */
function liveExpiries(state: ConcurrencyState | undefined, nowMs: number): number[] {
  const expiries: number[] = [];
  if (state !== undefined) for (const expiresAt of state.values()) if (expiresAt > nowMs) expiries.push(expiresAt);
  return expiries.sort((a, b) => a - b);
}

/** The leases kept after dropping expired ones and `without`; undefined when none is left. */
function trimmed(state: ConcurrencyState | undefined, nowMs: number, without?: string): Map<string, number> | undefined {
  const kept = new Map<string, number>();
  if (state !== undefined) for (const [id, expiresAt] of state) if (expiresAt > nowMs && id !== without) kept.set(id, expiresAt);
  return kept.size > 0 ? kept : undefined;
}

function latestExpiry(leases: ReadonlyMap<string, number>): number {
  let latest = 0;
  for (const expiresAt of leases.values()) if (expiresAt > latest) latest = expiresAt;
  return latest;
}

/**
 * Concurrency (Stripe's concurrent requests limiter, from "Scaling your API with rate limiters"): a semaphore of `limit`
 * slots per identity. Each admitted request holds one slot, a lease named by the operation's
 * token, until it is released or `leaseTtl` passes (so a crashed holder cannot leak slots).
 * A request takes one slot whatever its cost.
 */
export const concurrency: Algorithm<ConcurrencyParams, ConcurrencyState, typeof CONCURRENCY_FIELDS, 'concurrency'> = {
  name: 'concurrency',
  lua: concurrencyLua,
  fields: CONCURRENCY_FIELDS,
  redisSortedSet: true,

  parse(spec, at) {
    return {
      limit: wholeNumber(spec, 'limit', at),
      leaseTtlMs: span(spec, 'leaseTtl', at),
    };
  },

  luaArgs: (p) => [p.limit, p.leaseTtlMs],
  limit: (p) => p.limit,
  unitsTaken: () => 1,
  policy: (p) => ({ quota: p.limit, windowMs: p.leaseTtlMs, unit: 'concurrent-requests' }),

  step(state, nowMs, { limit, leaseTtlMs }, _cost, token): StepResult<ConcurrencyState> {
    const live = liveExpiries(state, nowMs);
    if (live.length >= limit) {
      const resetAfterMs = live.length > 0 ? live[live.length - 1]! - nowMs : 0;
      // A slot frees when enough leases have expired to leave fewer than `limit` (more may be live
      // than a limit lowered under them); a limit of 0 never frees one.
      const retryAfterMs = limit === 0 ? Infinity : live[live.length - limit]! - nowMs;
      return { allowed: false, remaining: 0, resetAfterMs, retryAfterMs, delayMs: 0, next: undefined, ttlMs: 0 };
    }
    const next = trimmed(state, nowMs) ?? new Map<string, number>();
    next.set(token, nowMs + leaseTtlMs);
    const ttlMs = latestExpiry(next) - nowMs;
    return { allowed: true, remaining: limit - live.length - 1, resetAfterMs: ttlMs, retryAfterMs: 0, delayMs: 0, next, ttlMs };
  },

  release(state, nowMs, _params, token) {
    const next = trimmed(state, nowMs, token);
    return { next, ttlMs: next === undefined ? 0 : latestExpiry(next) - nowMs };
  },
};
