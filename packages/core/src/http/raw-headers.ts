/**
 * The value of the field named `lowerName` among a Node request's raw headers (`rawHeaders`:
 * name, value, name, value…), its lines joined with ', ' as Node joins them into `req.headers`;
 * undefined when there is none, or no raw headers (a request object built by hand).
 */
export function rawFieldValue(rawHeaders: readonly string[] | undefined, lowerName: string): string | undefined {
  if (rawHeaders === undefined) return undefined;
  let value: string | undefined;
  for (let i = 0; i < rawHeaders.length; i += 2) {
    if (sameFieldName(rawHeaders[i]!, lowerName)) {
      value = value === undefined ? rawHeaders[i + 1]! : `${value}, ${rawHeaders[i + 1]!}`;
    }
  }
  return value;
}

/** Whether a field named `lowerName` (in any case, even empty) is among the raw headers. */
export function hasRawField(rawHeaders: readonly string[] | undefined, lowerName: string): boolean {
  return rawFieldValue(rawHeaders, lowerName) !== undefined;
}

/**
 * Whether `name` is `lowerName` in any case. Field names are tokens (ASCII), so setting the 0x20
 * bit folds a letter to lower case; `toLowerCase` would take ICU's path and build a string.
 */
function sameFieldName(name: string, lowerName: string): boolean {
  if (name.length !== lowerName.length) return false;
  for (let i = 0; i < name.length; i++) {
    const code = name.charCodeAt(i);
    const lower = code >= 0x41 && code <= 0x5a ? code | 0x20 : code;
    if (lower !== lowerName.charCodeAt(i)) return false;
  }
  return true;
}
