import { describeValue, invalidOption, TollgateError } from './errors.js';
import type { ConsumeOptions, HoldOptions, RefundOptions } from './limiter-types.js';
import { type FieldSet, refuseUnknownFields } from './option-fields.js';
import type { BoundLimit } from './stores/store.js';
import { limitCosts } from './units.js';

/** One entry per option of `ConsumeOptions`: the compiler refuses this object when one is missing. */
export const CONSUME_FIELDS = { cost: true } as const satisfies Record<keyof ConsumeOptions, true>;
/** One entry per option of `RefundOptions`, likewise. */
export const REFUND_FIELDS = { cost: true, charge: true } as const satisfies Record<keyof RefundOptions, true>;
/** One entry per option of `HoldOptions`, likewise. */
export const HOLD_FIELDS = { cost: true, ttl: true } as const satisfies Record<keyof HoldOptions, true>;

/**
 * The cost `consume`, `refund` or `hold` options ask for (default 1), per limit of `limits` when
 * an amount per unit charges them differently (see `limitCosts`); `fields` are the ones they take.
 * Throws `ERR_TOLLGATE_INVALID_COST` for a bad cost and `ERR_TOLLGATE_INVALID_OPTION` naming a
 * field they do not take (`cots` would otherwise charge 1). On the hot path: a plain cost
 * allocates nothing unless it refuses.
 */
export function costOf(
  options: ConsumeOptions | undefined,
  fields: FieldSet = CONSUME_FIELDS,
  limits: readonly BoundLimit[] = [],
): number | readonly number[] {
  if (options === undefined) return 1;
  if (typeof options !== 'object' || options === null) throw invalidOption('options', 'must be { cost }', options);
  refuseUnknownFields(options, fields);
  const cost = options.cost ?? 1;
  if (typeof cost === 'object' && cost !== null) return limitCosts(cost, limits, 'cost', 1);
  if (!Number.isSafeInteger(cost) || cost < 1) {
    throw new TollgateError(
      'ERR_TOLLGATE_INVALID_COST',
      `cost must be a whole number >= 1 or an object of amounts per unit (got ${describeValue(cost)})`,
      'cost',
    );
  }
  return cost;
}
