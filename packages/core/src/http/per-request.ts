import { describeValue, TollgateError } from '../errors.js';
import { type LimitValues, limitSpecsOf, perCallFields } from '../limit-values.js';
import type { ChosenField } from '../limiter-config.js';
import type { Limiter } from '../limiter-types.js';
import type { Variants } from '../limiter-variants.js';
import { declaredFields } from '../shorthand.js';
import type { RuleSpec } from '../spec.js';
import type { HttpRequestInfo, LimitFunction } from './types.js';

/** A field of the rule given as a function. */
export interface PerRequestField extends ChosenField {
  choose: LimitFunction;
}

function isThenable(value: unknown): boolean {
  return typeof (value as { then?: unknown } | null)?.then === 'function';
}

/** What the rule's limits are bound with where a function stands: a value every count and rate takes. */
const PLACEHOLDER = 1;

/**
 * The rule with a placeholder for each count and rate given as a function, and those functions.
 * A function anywhere else that the algorithm declares (a window, a mode) is refused here; one in
 * a field it does not declare is left for `bindRule` to refuse as any unknown field.
 */
export function splitPerRequest(rule: RuleSpec): { bindable: RuleSpec; fields: PerRequestField[] } {
  const specs = limitSpecsOf(rule);
  const several = Array.isArray((rule as { limits?: unknown }).limits);
  const fields: PerRequestField[] = [];
  const bindable = specs.map((spec, limit) => {
    const functions = Object.entries(spec).filter(([, value]) => typeof value === 'function');
    if (functions.length === 0) return spec;
    const chosen = perCallFields(spec);
    const declared = declaredFields(spec);
    const copy: Record<string, unknown> = { ...spec };
    for (const [field, choose] of functions) {
      const path = several ? `limits[${limit}].${field}` : field;
      if (!Object.hasOwn(declared, field)) continue;
      if (!Object.hasOwn(chosen, field)) {
        const names = Object.keys(chosen).join(', ');
        throw new TollgateError(
          'ERR_TOLLGATE_INVALID_OPTION',
          `${path} cannot be a function: only counts and rates are chosen per request (${names})`,
          path,
        );
      }
      fields.push({ limit, field, path, choose: choose as LimitFunction });
      copy[field] = PLACEHOLDER;
    }
    return copy;
  });
  if (fields.length === 0) return { bindable: rule, fields };
  return { bindable: (several ? { ...rule, limits: bindable } : bindable[0]) as RuleSpec, fields };
}

/**
 * The limiter of each request: the values its functions return for it (awaited when one is
 * async), chosen on `base` (its `variants`). A function that throws or rejects makes this
 * throw or reject with its error; a value the rule cannot take, with `ERR_TOLLGATE_INVALID_SPEC`
 * naming the field and what each function returned.
 */
export function limiterChooser(fields: readonly PerRequestField[], base: Limiter, variants: Variants) {
  const several = base.limits.length > 1;
  const pathOf = (i: number) => (several ? `limits[${i}]` : 'spec');

  function limiterOf(results: readonly unknown[]): Limiter {
    const values: Record<string, Record<string, unknown>> = {};
    for (const [i, { limit, field }] of fields.entries()) {
      const name = base.limits[limit]!.name;
      values[name] ??= {};
      values[name][field] = results[i];
    }
    const chosen = (several ? { limits: values } : values[base.limits[0]!.name]) as LimitValues;
    try {
      return variants.of(chosen, pathOf, 'limits');
    } catch (error) {
      const cause = error as TollgateError;
      const returned = fields.map(({ path }, i) => `${path}() returned ${describeValue(results[i])}`).join(', ');
      throw new TollgateError(cause.code, `${returned} for this request: ${cause.message}`, cause.field, { cause });
    }
  }

  return (req: unknown, info: HttpRequestInfo): Limiter | Promise<Limiter> => {
    const results = fields.map(({ choose }) => choose(req, info));
    if (!results.some(isThenable)) return limiterOf(results);
    return Promise.all(results).then(limiterOf);
  };
}
