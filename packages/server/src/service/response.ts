import { type Decision, FIELD, mergeRateLimitHeaders, rateLimitHeader, retryAfterSeconds } from '@tollgate/core';
import type { CompiledLimit } from '../config/rate-limit.js';
import { perUnit, UNIT_MS } from '../config/units.js';
import type { DescriptorStatus, Duration, HeaderValue, RateLimitResponse, RateLimitValue } from './messages.js';
import type { OverrideLimit } from './overrides.js';

/** What became of one descriptor of a request. */
export type DescriptorOutcome =
  | { kind: 'none' }
  | { kind: 'unlimited' }
  | { kind: 'blocked'; limit: CompiledLimit | OverrideLimit }
  | { kind: 'decided'; limit: CompiledLimit | OverrideLimit; decision: Decision };

/** `limit_remaining` of an unlimited descriptor, as envoyproxy/ratelimit sends it. */
const MAX_UINT32 = 0xffff_ffff;
const OK_UNMATCHED: DescriptorStatus = { code: 'OK', limit_remaining: 0 };
const OK_UNLIMITED: DescriptorStatus = { code: 'OK', limit_remaining: MAX_UINT32 };

/** The response to a request whose descriptors came to `outcomes`. */
export function responseOf(outcomes: readonly DescriptorOutcome[], options: { headers: boolean; shadow: boolean }): RateLimitResponse {
  const statuses = outcomes.map(statusOf);
  const over = isOverLimit(outcomes);
  return {
    overall_code: over && !options.shadow ? 'OVER_LIMIT' : 'OK',
    statuses,
    response_headers_to_add: options.headers ? responseHeaders(outcomes, over) : [],
  };
}

export function isOver(outcome: DescriptorOutcome): boolean {
  return outcome.kind === 'blocked' || (outcome.kind === 'decided' && !outcome.decision.allowed);
}

function isQuota(outcome: DescriptorOutcome): boolean {
  return (outcome.kind === 'blocked' || outcome.kind === 'decided') && 'quota' in outcome.limit && outcome.limit.quota;
}

/** Over the limit when a descriptor outside quota mode is, or when there are quota-mode descriptors and all of them are. */
function isOverLimit(outcomes: readonly DescriptorOutcome[]): boolean {
  let quotas = 0;
  let quotasOver = 0;
  for (const outcome of outcomes) {
    const quota = isQuota(outcome);
    if (quota) quotas++;
    if (!isOver(outcome)) continue;
    if (!quota) return true;
    quotasOver++;
  }
  return quotas > 0 && quotas === quotasOver;
}

function statusOf(outcome: DescriptorOutcome): DescriptorStatus {
  switch (outcome.kind) {
    case 'none':
      return OK_UNMATCHED;
    case 'unlimited':
      return OK_UNLIMITED;
    case 'blocked': {
      const configured = outcome.limit.configured!;
      return {
        code: 'OVER_LIMIT',
        current_limit: configured,
        limit_remaining: 0,
        duration_until_reset: duration(UNIT_MS[configured.unit]),
      };
    }
    case 'decided': {
      const { decision, limit } = outcome;
      return {
        code: decision.allowed ? 'OK' : 'OVER_LIMIT',
        current_limit: limit.configured ?? currentLimit(decision),
        limit_remaining: Math.min(MAX_UINT32, Math.max(0, decision.remaining)),
        duration_until_reset: duration(decision.resetAfterMs),
      };
    }
  }
}

/** The RateLimit message of the limit a decision reports, from its policy (a concurrency limit has no unit of time). */
function currentLimit(decision: Decision): RateLimitValue {
  const part = decision.limits.find((limit) => limit.name === decision.limitName) ?? decision.limits[0]!;
  const { quota, windowMs, unit } = part.policy;
  if (unit === 'concurrent-requests') return { name: part.name, requests_per_unit: Math.floor(quota), unit: 'UNKNOWN' };
  return { name: part.name, ...perUnit(quota, windowMs) };
}

function duration(ms: number): Duration {
  const whole = Math.max(0, Math.ceil(Number.isFinite(ms) ? ms : 0));
  return { seconds: Math.floor(whole / 1000), nanos: (whole % 1000) * 1_000_000 };
}

/**
 * The draft-ietf-httpapi-ratelimit-headers-11 fields of every limit the request was checked
 * against (`RateLimit-Policy` and `RateLimit`, one list member per limit, names made unique),
 * and `Retry-After` when the request is over the limit: the longest wait among the descriptors over it.
 */
function responseHeaders(outcomes: readonly DescriptorOutcome[], over: boolean): HeaderValue[] {
  let fields: readonly [string, string][] = [];
  let retryAfter: number | undefined;
  for (const outcome of outcomes) {
    if (outcome.kind !== 'decided') continue;
    const current = new Map(fields);
    const own: [string, string][] = [
      [FIELD.policy, outcome.limit.policy],
      [FIELD.rateLimit, rateLimitHeader(outcome.decision)],
    ];
    fields = current.size === 0 ? own : mergeRateLimitHeaders(own, (name) => current.get(name));
    const wait = outcome.decision.allowed ? undefined : retryAfterSeconds(outcome.decision);
    if (wait !== undefined && (retryAfter === undefined || wait > retryAfter)) retryAfter = wait;
  }
  const headers = fields.map(([key, value]) => ({ key, value }));
  if (over && retryAfter !== undefined) headers.push({ key: FIELD.retryAfter, value: String(retryAfter) });
  return headers;
}
