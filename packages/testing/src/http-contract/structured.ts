import { parseList } from 'structured-headers';

/** A structured-field list header (RateLimit, RateLimit-Policy) as `[name, params]` pairs. */
export function structured(value: string | undefined): [unknown, Record<string, unknown>][] {
  return parseList(value ?? '').map(([item, params]) => [item, Object.fromEntries(params)]);
}
