import type { FieldKind } from '../algorithms/spec-fields.js';
import { describeValue, TollgateError } from '../errors.js';
import { declaredFields } from '../shorthand.js';
import type { RuleSpec } from '../spec.js';

/**
 * The part of a rule one instance of `1 / share` enforces on its own: every count and rate
 * multiplied by `share` (e.g. `1/4` with four instances behind a balancer). Counts are
 * rounded down, never below 1 (but 0 stays 0). Used to build a memory fallback for when the store is down.
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

/** Scales each field of `limit` as the kind its algorithm (or shorthand) declares says. */
function scaleLimit(limit: unknown, share: number): Record<string, unknown> {
  if (typeof limit !== 'object' || limit === null) return limit as Record<string, unknown>;
  const spec = limit as Record<string, unknown>;
  const scaled: Record<string, unknown> = { ...spec };
  for (const [field, kind] of Object.entries(declaredFields(spec))) {
    const value = spec[field];
    if (typeof value === 'number') scaled[field] = scaleField(kind, value, share);
  }
  return scaled;
}

/** One value of a field of `kind`, scaled to `share` (counts rounded down, at least 1 unless 0). */
export function scaleField(kind: FieldKind, value: number, share: number): number {
  // A count of 0 (nothing admitted) stays 0.
  if (kind === 'count') return value === 0 ? 0 : Math.max(1, Math.floor(value * share));
  if (kind === 'rate') return value * share;
  return value;
}
