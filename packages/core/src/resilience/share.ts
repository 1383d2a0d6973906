import { describeValue, TollgateError } from '../errors.js';
import type { RuleSpec } from '../spec.js';

/** Spec fields counting requests at once: scaled and rounded down, to at least 1. */
const COUNT_FIELDS = ['burst', 'capacity', 'limit'];
/** Spec fields giving a rate: scaled as they are. */
const RATE_FIELDS = ['qps', 'perSecond', 'perMinute', 'perHour', 'perDay', 'rate', 'refillPerSecond', 'refillAmount'];

/**
 * The part of a rule one instance of `1 / share` enforces on its own: every count and rate
 * multiplied by `share` (e.g. `1/4` with four instances behind a balancer). Counts are
 * rounded down, never below 1. Used to build a memory fallback for when the store is down.
 */
export function shareOfRule(rule: RuleSpec, share: number): RuleSpec {
  if (typeof share !== 'number' || !(share > 0 && share <= 1)) {
    throw new TollgateError('ERR_TOLLGATE_INVALID_OPTION', `share must be a number in (0, 1] (got ${describeValue(share)})`, 'share');
  }
  const record = rule as unknown as Record<string, unknown>;
  if (Array.isArray(record.limits)) {
    return { ...record, limits: record.limits.map((limit) => scaleLimit(limit, share)) } as unknown as RuleSpec;
  }
  return scaleLimit(record, share) as RuleSpec;
}

function scaleLimit(limit: unknown, share: number): Record<string, unknown> {
  if (typeof limit !== 'object' || limit === null) return limit as Record<string, unknown>;
  const spec = limit as Record<string, unknown>;
  const scaled: Record<string, unknown> = { ...spec };
  for (const field of COUNT_FIELDS) {
    if (typeof spec[field] === 'number') scaled[field] = Math.max(1, Math.floor((spec[field] as number) * share));
  }
  for (const field of RATE_FIELDS) {
    if (typeof spec[field] === 'number') scaled[field] = (spec[field] as number) * share;
  }
  return scaled;
}
