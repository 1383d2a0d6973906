import type { RegisteredAlgorithm } from './algorithms/registry.js';
import type { FieldKind } from './algorithms/spec-fields.js';
import { describeValue, TollgateError } from './errors.js';
import { refuseUnknownFields } from './option-fields.js';
import { declaredFields, type ShorthandName } from './shorthand.js';
import { bindRule, type RuleSpec } from './spec.js';
import type { BoundLimit } from './stores/store.js';

/**
 * The counts and rates of a rule chosen per call (`Limiter.withLimits`), by the names its specs
 * give them (`limit`, `capacity`, `burst`, `rate`, `qps`, `perMinute`, `refillPerSecond`...):
 * `{ limit: 500 }` for a rule of one limit, `{ limits: { daily: { perDay: 10_000 } } }` by limit
 * name for any rule. Durations, modes and names stay the rule's.
 */
export type LimitValues =
  | { readonly [field: string]: number }
  | { readonly limits: { readonly [limitName: string]: { readonly [field: string]: number } } };

/** The names, in algorithms `F`'s declared fields, of those of kind count or rate. */
type CountOrRate<F> = { [K in keyof F]: F[K] extends 'count' | 'rate' ? K : never }[keyof F];

/** Every field name, in any spec, whose value may be chosen per call: counts, rates and the shorthands of a rate. */
export type PerCallFieldName =
  | (RegisteredAlgorithm extends infer A ? (A extends { fields: infer F } ? CountOrRate<F> : never) : never)
  | ShorthandName;

/** A field a value may be chosen for per call: one of these kinds. */
function isChosenPerCall(kind: FieldKind | undefined): boolean {
  return kind === 'count' || kind === 'rate';
}

/** The fields of a limit spec, as written, that a value may be chosen for per call. */
export function perCallFields(spec: Readonly<Record<string, unknown>>): Readonly<Record<string, true>> {
  const fields: Record<string, true> = {};
  for (const [field, kind] of Object.entries(declaredFields(spec))) if (isChosenPerCall(kind)) fields[field] = true;
  return fields;
}

/** Each limit spec of a rule, as written (one for a single spec, the list of `limits`). */
export function limitSpecsOf(rule: RuleSpec): readonly Readonly<Record<string, unknown>>[] {
  const record = rule as unknown as Record<string, unknown>;
  return Array.isArray(record.limits) ? (record.limits as Record<string, unknown>[]) : [record];
}

/** Where the limit of index `i` (named `name`) sits, as errors name its fields. */
export type LimitPath = (i: number, name: string) => string;

/**
 * The limits of `rule` (bound as `bound`) with `values` chosen for some of their counts and
 * rates, each under the name it has in `bound`, so its state is the one `bound`'s limit keeps.
 * Errors name the fields under `pathOf` (ERR_TOLLGATE_INVALID_SPEC); `path` names `values` itself.
 */
export function limitsWithValues(
  rule: RuleSpec,
  bound: readonly BoundLimit[],
  values: LimitValues,
  path: string,
  pathOf: LimitPath,
): BoundLimit[] {
  const chosen = valuesByLimit(bound, values, path);
  const specs = limitSpecsOf(rule);
  return bound.map((limit, i) => {
    const given = chosen[i];
    if (given === undefined) return limit;
    const at = pathOf(i, limit.name);
    refuseUnknownFields(given, perCallFields(specs[i]!), `${at}.`, 'ERR_TOLLGATE_INVALID_SPEC');
    return bindRule({ ...specs[i]!, ...given, name: limit.name }, at)[0]!;
  });
}

/** `values` split per limit (undefined: nothing chosen for it), in the order of `bound`. */
function valuesByLimit(bound: readonly BoundLimit[], values: LimitValues, path: string): (object | undefined)[] {
  if (typeof values !== 'object' || values === null || Array.isArray(values)) throw invalidValues(path, 'must be an object', values);
  const byName = (values as { limits?: unknown }).limits;
  if (byName === undefined) {
    if (bound.length !== 1) {
      const names = bound.map((limit) => limit.name).join(', ');
      throw invalidValues(path, `must name the limit of each value: { limits: { <${names}>: { ... } } }`, values);
    }
    return [values];
  }
  if (typeof byName !== 'object' || byName === null || Array.isArray(byName)) {
    throw invalidValues(`${path}.limits`, 'must be an object of values by limit name', byName);
  }
  const names = Object.fromEntries(bound.map((limit) => [limit.name, true] as const));
  refuseUnknownFields(byName, names, `${path}.limits.`, 'ERR_TOLLGATE_INVALID_SPEC');
  return bound.map((limit) => {
    const given = (byName as Record<string, unknown>)[limit.name];
    if (given !== undefined && (typeof given !== 'object' || given === null)) {
      throw invalidValues(`${path}.limits.${limit.name}`, 'must be an object of values', given);
    }
    return given as object | undefined;
  });
}

function invalidValues(field: string, expectation: string, value: unknown): TollgateError {
  return new TollgateError('ERR_TOLLGATE_INVALID_SPEC', `${field} ${expectation} (got ${describeValue(value)})`, field);
}
