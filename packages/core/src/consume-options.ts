import { describeValue, invalidOption, TollgateError } from './errors.js';
import type { ConsumeOptions, RefundOptions } from './limiter-types.js';
import { type FieldSet, refuseUnknownFields } from './option-fields.js';

/** One entry per option of `ConsumeOptions`: the compiler refuses this object when one is missing. */
export const CONSUME_FIELDS = { cost: true } as const satisfies Record<keyof ConsumeOptions, true>;
/** One entry per option of `RefundOptions`, likewise. */
export const REFUND_FIELDS = { cost: true, charge: true } as const satisfies Record<keyof RefundOptions, true>;

/**
 * The cost `consume` or `refund` options ask for (default 1); `fields` are the ones they take.
 * Throws `ERR_TOLLGATE_INVALID_COST` for a bad cost and `ERR_TOLLGATE_INVALID_OPTION` naming a
 * field they do not take (`cots` would otherwise charge 1). On the hot path: allocates nothing
 * unless it refuses.
 */
export function costOf(options: ConsumeOptions | undefined, fields: FieldSet = CONSUME_FIELDS): number {
  if (options === undefined) return 1;
  if (typeof options !== 'object' || options === null) throw invalidOption('options', 'must be { cost }', options);
  refuseUnknownFields(options, fields);
  const cost = options.cost ?? 1;
  if (!Number.isSafeInteger(cost) || cost < 1) {
    throw new TollgateError('ERR_TOLLGATE_INVALID_COST', `cost must be a whole number >= 1 (got ${describeValue(cost)})`, 'cost');
  }
  return cost;
}
