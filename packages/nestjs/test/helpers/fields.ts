import { type Item, parseList } from 'structured-headers';

/** A `RateLimit-Policy` or `RateLimit` field parsed as an RFC 9651 list: policy name → its parameters. */
export function parseRateLimitField(value: string | undefined): Map<string, Record<string, unknown>> {
  if (value === undefined) throw new Error('header missing');
  const byName = new Map<string, Record<string, unknown>>();
  for (const member of parseList(value)) {
    const [name, params] = member as Item;
    if (typeof name !== 'string') throw new Error(`policy name must be a string, got ${String(name)}`);
    byName.set(name, Object.fromEntries(params));
  }
  return byName;
}
