import { gcra } from './algorithms/gcra/model.js';
import { ALGORITHMS } from './algorithms/registry.js';
import { type FieldPath, fieldPath, type SpecFields } from './algorithms/spec-fields.js';
import type { Duration } from './duration.js';
import { invalidSpec } from './errors.js';
import type { FieldSet } from './option-fields.js';

/**
 * The shorthand fields, each GCRA's `rate` under another name, with the period it fixes
 * (`rate` itself keeps the spec's own `period`). Listed in the order error messages name them.
 */
const SHORTHAND_PERIODS = {
  qps: 1000,
  rate: undefined,
  perSecond: '1s',
  perMinute: '1m',
  perHour: '1h',
  perDay: '1d',
} as const satisfies Readonly<Record<string, Duration | undefined>>;
/** The fields of a shorthand spec that hold GCRA's rate under another name (and `rate` itself). */
export type ShorthandName = keyof typeof SHORTHAND_PERIODS;
const SHORTHANDS = Object.keys(SHORTHAND_PERIODS) as ShorthandName[];

/** What a shorthand spec may carry: GCRA's fields, and the shorthands of the kind of GCRA's `rate`. */
const SHORTHAND_FIELDS: SpecFields = {
  ...gcra.fields,
  ...Object.fromEntries(SHORTHANDS.map((field) => [field, gcra.fields.rate])),
};

/**
 * Every field some limit spec takes (`algorithm`, `name`, the shorthands, each algorithm's own):
 * a field outside it is a misspelling whatever the algorithm, named before anything else.
 */
export const SPEC_FIELDS: FieldSet = Object.fromEntries(
  ['algorithm', 'name', 'unit', ...SHORTHANDS, ...[...ALGORITHMS.values()].flatMap((algorithm) => Object.keys(algorithm.fields))].map(
    (field) => [field, true],
  ),
);

/** The fields a limit spec, as written, may carry with their kinds; none when it names no known algorithm. */
export function declaredFields(spec: Readonly<Record<string, unknown>>): SpecFields {
  if (spec.algorithm === undefined) return SHORTHAND_FIELDS;
  return (typeof spec.algorithm === 'string' ? ALGORITHMS.get(spec.algorithm)?.fields : undefined) ?? {};
}

/** A spec in its full `{ algorithm, ... }` form, and where each of its fields was written. */
export interface Expanded {
  spec: Record<string, unknown>;
  at: FieldPath<string>;
}

/** Rewrites a shorthand into the full `{ algorithm, ... }` form. */
export function expandShorthand(spec: Record<string, unknown>, path: string): Expanded {
  if (spec.algorithm !== undefined) return { spec, at: fieldPath(path) };
  const used = SHORTHANDS.filter((field) => spec[field] !== undefined);
  if (used.length === 0) {
    throw invalidSpec(
      `${path}.algorithm`,
      `is required (one of ${[...ALGORITHMS.keys()].join(', ')}) unless a shorthand (${SHORTHANDS.join(', ')}) is given`,
      undefined,
    );
  }
  if (used.length > 1) throw invalidSpec(`${path}.${used[1]}`, `cannot be combined with ${used[0]}`, spec[used[1]!]);
  const field = used[0]!;
  const period = SHORTHAND_PERIODS[field];
  if (period === undefined) return { spec: { ...spec, algorithm: gcra.name }, at: fieldPath(path) };
  // qps and perMinute & co. fix the period: a period given alongside would be silently ignored.
  if (spec.period !== undefined) {
    throw invalidSpec(
      `${path}.period`,
      `cannot be combined with ${field}, which sets the period (use rate with period instead)`,
      spec.period,
    );
  }
  const rate = qpsOrFail(spec[field], `${path}.${field}`);
  const { [field]: _shorthand, ...rest } = spec;
  return {
    spec: { ...rest, algorithm: gcra.name, rate, period },
    at: (key) => `${path}.${key === 'rate' ? field : key}`,
  };
}

function qpsOrFail(value: unknown, field: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    throw invalidSpec(field, 'must be a finite number > 0', value);
  }
  return value;
}
