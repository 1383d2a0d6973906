import { TollgateError } from './errors.js';
import { type LimitPath, type LimitValues, limitSpecsOf, limitsWithValues } from './limit-values.js';
import type { ChosenField, LimiterConfig } from './limiter-config.js';
import type { Limiter } from './limiter-types.js';
import type { StoreFailureAnswer } from './resilience/guarded-store.js';
import { scaleField } from './resilience/share.js';
import { declaredFields } from './shorthand.js';

/** Distinct values whose limiter is kept: beyond, the oldest is built again when asked for (its state is in the store). */
const KEPT = 256;

/** Builds the limiter of a config; `variants` answers its `withLimits`. */
export type LimiterBuilder = (config: LimiterConfig, fallback: StoreFailureAnswer, variants: Variants) => Limiter;

export interface Variants {
  /**
   * The limiter of the rule with `values` chosen (see `Limiter.withLimits`), the same object for
   * the same values while it is kept. Errors name the fields under `path` (`withLimits.limit`), or
   * where `pathOf` puts each limit.
   */
  of(values: LimitValues, pathOf?: LimitPath, path?: string): Limiter;
}

/**
 * `withLimits` of a limiter and of every limiter it gives: the same store, prefix, names, events,
 * breaker and deny cache (whose entries say which limits denied), so a client keeps its state
 * whatever values it is limited by. The fallback built from a `share` of the rule gives the
 * values scaled to that share; a fallback limiter given as is answers as it is.
 */
export function createVariants(
  config: LimiterConfig,
  fallback: StoreFailureAnswer,
  share: number | undefined,
  build: LimiterBuilder,
): Variants {
  const kept = new Map<string, Limiter>();
  const variants: Variants = {
    of(values, pathOf, path = 'withLimits') {
      const id = idOf(values);
      const known = id === undefined ? undefined : kept.get(id);
      if (known !== undefined) return known;
      const byName = typeof values === 'object' && values !== null && 'limits' in values;
      const at = pathOf ?? ((_i: number, name: string) => (byName ? `${path}.limits.${name}` : path));
      const limits = limitsWithValues(config.spec, config.limits, values, path, at);
      if (config.chosenPerCall !== undefined) requireChosen(config.chosenPerCall, config, values, path);
      const answer = typeof fallback === 'object' && share !== undefined ? fallback.withLimits(scaled(values, share, config)) : fallback;
      const variant = build({ ...config, limits, chosenPerCall: undefined }, answer, variants);
      if (id !== undefined) {
        if (kept.size >= KEPT) kept.delete(kept.keys().next().value!);
        kept.set(id, variant);
      }
      return variant;
    },
  };
  return variants;
}

/**
 * The cache key of some values: their JSON, when every value is a finite number (the only values
 * worth keeping); undefined otherwise, so values JSON cannot tell apart (`undefined`, NaN) are
 * always checked, and refused.
 */
function idOf(values: LimitValues): string | undefined {
  if (typeof values !== 'object' || values === null) return undefined;
  const byName = (values as { limits?: unknown }).limits;
  const groups = byName === undefined ? [values] : typeof byName === 'object' && byName !== null ? Object.values(byName) : [undefined];
  for (const group of groups) {
    if (typeof group !== 'object' || group === null) return undefined;
    for (const value of Object.values(group)) if (typeof value !== 'number' || !Number.isFinite(value)) return undefined;
  }
  return JSON.stringify(values);
}

/** Refuses values that leave out a field whose value is chosen per call (the rule holds a placeholder there). */
function requireChosen(chosen: readonly ChosenField[], config: LimiterConfig, values: LimitValues, path: string): void {
  const byName = (values as { limits?: Record<string, Record<string, unknown> | undefined> }).limits;
  for (const { limit, field, path: option } of chosen) {
    const name = config.limits[limit]!.name;
    const given = byName === undefined ? (values as Record<string, unknown>) : byName?.[name];
    if (given?.[field] === undefined) {
      const where = byName === undefined && config.limits.length === 1 ? `${path}.${field}` : `${path}.limits.${name}.${field}`;
      throw new TollgateError('ERR_TOLLGATE_LIMIT_NOT_CHOSEN', `${where} is required: ${option} is chosen per request`, where);
    }
  }
}

/** The values scaled to `share`, as the fallback of that share holds its counts and rates. */
function scaled(values: LimitValues, share: number, { spec, limits }: LimiterConfig): LimitValues {
  const specs = limitSpecsOf(spec);
  const scale = (given: Readonly<Record<string, unknown>>, limitSpec: Readonly<Record<string, unknown>> | undefined) => {
    const kinds = limitSpec === undefined ? {} : declaredFields(limitSpec);
    return Object.fromEntries(
      Object.entries(given).map(([field, value]) => {
        const kind = kinds[field];
        return [field, typeof value === 'number' && kind !== undefined ? scaleField(kind, value, share) : value];
      }),
    ) as Record<string, number>;
  };
  const byName = (values as { limits?: Record<string, Record<string, unknown>> }).limits;
  if (byName === undefined) return scale(values as Record<string, unknown>, specs[0]);
  const specOf = (name: string) => specs[limits.findIndex((limit) => limit.name === name)];
  return { limits: Object.fromEntries(Object.entries(byName).map(([name, given]) => [name, scale(given, specOf(name))])) };
}
