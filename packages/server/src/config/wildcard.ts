/** A descriptor whose value holds `*`: its `key_value` and the literal parts between the stars. */
export interface WildcardEntry {
  readonly key: string;
  readonly parts: readonly string[];
}

export function splitWildcard(key: string): WildcardEntry {
  return { key, parts: key.split('*') };
}

/**
 * True when `value` matches the pattern split into `parts`: each `*` stands for any run of
 * characters, none included (envoyproxy/ratelimit's `wildcardMatch`, greedy left to right).
 */
export function wildcardMatch(parts: readonly string[], value: string): boolean {
  if (parts.length === 1) return parts[0] === value;
  const first = parts[0]!;
  const last = parts[parts.length - 1]!;
  if (!value.startsWith(first) || !value.endsWith(last)) return false;
  let fixed = 0;
  for (const part of parts) fixed += part.length;
  if (value.length < fixed) return false;
  let remaining = value.slice(first.length, value.length - last.length);
  for (let i = 1; i < parts.length - 1; i++) {
    const at = remaining.indexOf(parts[i]!);
    if (at < 0) return false;
    remaining = remaining.slice(at + parts[i]!.length);
  }
  return true;
}
