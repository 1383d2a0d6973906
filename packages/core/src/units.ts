import { describeValue, invalidSpec, TollgateError } from './errors.js';
import type { BoundLimit } from './stores/store.js';

/** What a limit counts when its spec names no `unit`. */
export const DEFAULT_UNIT = 'requests';

/**
 * A unit name: lowercase, as RateLimit-Policy's `qu` parameter carries it (`requests` and
 * `content-bytes` are registered values; others, such as `tokens`, are sent as they are).
 */
const UNIT_PATTERN = /^[a-z][a-z0-9-]{0,31}$/;

/** The concurrency limit's own unit, which a spec cannot take. */
const CONCURRENT = 'concurrent-requests';

/** The unit a spec's `unit` field names (default `requests`); throws ERR_TOLLGATE_INVALID_SPEC naming `field`. */
export function unitOf(value: unknown, field: string): string {
  if (value === undefined) return DEFAULT_UNIT;
  if (typeof value !== 'string' || !UNIT_PATTERN.test(value) || value === CONCURRENT) {
    throw invalidSpec(field, 'must be a unit name of 1-32 characters a-z 0-9 - starting with a letter, e.g. "tokens"', value);
  }
  return value;
}

/** An amount per unit of the rule's limits: `{ requests: 1, tokens: 800 }`. */
export type CostPerUnit = Readonly<Record<string, number>>;

/**
 * What an operation charges: a number charges every limit of the rule that much (a concurrency
 * limit one slot); an object charges each limit the amount of its unit, 1 for a unit it does not
 * name (the default cost).
 */
export type Cost = number | CostPerUnit;

/**
 * The cost per limit of `cost`, given at `field`: one number when every limit of `limits` is
 * charged the same (always so in a rule of one unit), else one per limit in their order. Amounts
 * are whole numbers >= `least` (a plain number) or >= 0 (per unit). Throws ERR_TOLLGATE_INVALID_COST
 * naming the field, and naming a unit no limit of the rule counts.
 */
export function limitCosts(cost: unknown, limits: readonly BoundLimit[], field: string, least: number): number | readonly number[] {
  if (typeof cost !== 'object' || cost === null || Array.isArray(cost)) return wholeAmount(cost, field, least);
  const amounts = cost as Record<string, unknown>;
  for (const unit of Object.keys(amounts)) {
    if (!limits.some((limit) => limit.unit === unit)) {
      const units = [...new Set(limits.map((limit) => limit.unit))].join(', ');
      throw invalidCost(`${field}.${unit}`, `names a unit no limit of the rule counts (units: ${units})`, amounts[unit]);
    }
  }
  const costs = limits.map(({ unit }) => (amounts[unit] === undefined ? 1 : wholeAmount(amounts[unit], `${field}.${unit}`, 0)));
  return costs.every((each) => each === costs[0]) ? costs[0]! : costs;
}

function wholeAmount(value: unknown, field: string, least: number): number {
  if (!Number.isSafeInteger(value) || (value as number) < least) {
    throw invalidCost(field, `must be a whole number >= ${least} or an object of amounts per unit`, value);
  }
  return value as number;
}

function invalidCost(field: string, expectation: string, value: unknown): TollgateError {
  return new TollgateError('ERR_TOLLGATE_INVALID_COST', `${field} ${expectation} (got ${describeValue(value)})`, field);
}
