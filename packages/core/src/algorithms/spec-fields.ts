/**
 * What a spec field holds, which says how a fallback share (`shareOfRule`) scales it:
 * - `count`: requests at once (a burst, a capacity, a limit): scaled, rounded down, at least 1;
 * - `rate`: requests per period: scaled as is;
 * - `duration`: a `Duration`; `factor`: a plain number; `oneOf`: one of the listed words. Not scaled.
 */
export type FieldKind = 'count' | 'rate' | 'duration' | 'factor' | { readonly oneOf: readonly [string, ...string[]] };

/** An algorithm's spec fields (besides `algorithm` and `name`), in the order error messages list them. */
export type SpecFields = Readonly<Record<string, FieldKind>>;

/** The names of the fields `F` declares. */
export type FieldName<F extends SpecFields> = keyof F & string;

/** A spec as `parse` reads it: the fields named `K`, each of any value until parsed. */
export type SpecValues<K extends string> = { readonly [P in K]: unknown };

/** Where each field was written, as errors name it: `spec.rate`, or `limits[1].qps` for a shorthand's rate. */
export type FieldPath<K extends string> = (key: K) => string;

/** A field holding one of `values`; the first is its default. */
export function oneOf<const V extends readonly [string, ...string[]]>(...values: V): { readonly oneOf: V } {
  return { oneOf: values };
}

/** `${path}.${key}`: where a field sits in a spec written as the algorithm names it. */
export function fieldPath(path: string): FieldPath<string> {
  return (key) => `${path}.${key}`;
}
