import { FIELD } from './headers.js';

/**
 * Several limiters on one request (an app-level and a route-level one) each set the
 * `RateLimit-Policy` and `RateLimit` fields. Both are lists (draft-ietf-httpapi-ratelimit-headers),
 * so instead of the last limiter's replacing the others', the fields are merged: the response
 * carries every limiter's members.
 */

const POLICY = FIELD.policy;
const RATELIMIT = FIELD.rateLimit;

/** Splits a structured-field list into its members, keeping commas inside quoted strings. */
function members(list: string): string[] {
  const found: string[] = [];
  let start = 0;
  let quoted = false;
  for (let i = 0; i < list.length; i++) {
    const char = list[i];
    if (char === '\\' && quoted) i++;
    else if (char === '"') quoted = !quoted;
    else if (char === ',' && !quoted) {
      found.push(list.slice(start, i).trim());
      start = i + 1;
    }
  }
  found.push(list.slice(start).trim());
  return found.filter((member) => member !== '');
}

/** The name (the quoted string item) of a member such as `"1m";q=300;w=60`. */
function nameOf(member: string): string | undefined {
  return /^"((?:[^"\\]|\\.)*)"/.exec(member)?.[1];
}

function namedList(list: string): boolean {
  return members(list).every((member) => nameOf(member) !== undefined);
}

function renamed(member: string, renames: ReadonlyMap<string, string>): string {
  const name = nameOf(member);
  const to = name === undefined ? undefined : renames.get(name);
  return to === undefined ? member : `"${to}"${member.slice(name!.length + 2)}`;
}

/**
 * `headers` (one limiter's) merged with the fields already on the response (`current(name)`,
 * a case-insensitive lookup as a response's own, undefined when absent): `RateLimit-Policy` and `RateLimit` become the existing list followed by
 * the new members. A new member whose name the response already carries is renamed `<name>-2`
 * (`-3`...) in both fields, so each `RateLimit` member still names its policy. Other headers,
 * headers on a response without these fields, and fields of the earlier drafts (not lists of
 * named members) are returned as they are: they replace the response's.
 */
export function mergeRateLimitHeaders(
  headers: readonly [string, string][],
  current: (name: string) => string | undefined,
): readonly [string, string][] {
  // Lower case: a response's header lookup lower-cases the name it is given, so these cost no new string.
  const existingPolicy = current(POLICY);
  const existingRate = current(RATELIMIT);
  if (!existingPolicy && !existingRate) return headers;
  const taken = new Set([...members(existingPolicy ?? ''), ...members(existingRate ?? '')].map(nameOf));
  const renames = new Map<string, string>();
  const policy = headers.find(([name]) => name.toLowerCase() === POLICY)?.[1] ?? '';
  for (const name of members(policy).map(nameOf)) {
    if (name === undefined || !taken.has(name)) continue;
    let n = 2;
    while (taken.has(`${name}-${n}`)) n++;
    renames.set(name, `${name}-${n}`);
    taken.add(`${name}-${n}`);
  }
  return headers.map(([name, value]): [string, string] => {
    const lower = name.toLowerCase();
    const existing = lower === POLICY ? existingPolicy : lower === RATELIMIT ? existingRate : undefined;
    // Only lists of named members merge: draft 6 and 7 fields describe one limit, the last limiter's, as express-rate-limit sends them.
    if (!existing || !namedList(existing) || !namedList(value)) return [name, value];
    return [name, [existing, ...members(value).map((member) => renamed(member, renames))].join(', ')];
  });
}

/** The names of a `RateLimit-Policy` or `RateLimit` list's named members, in order (none for an absent field). */
export function rateLimitMemberNames(list: string | undefined): string[] {
  if (list === undefined) return [];
  return members(list).flatMap((member) => nameOf(member) ?? []);
}

/**
 * `list` without its members named in `names`: what a limiter reporting again on the same
 * response (a GraphQL guard checks every field it limits) takes away before merging its new
 * members, so a response carries one member per limiter. Undefined when nothing is left.
 */
export function withoutRateLimitMembers(list: string | undefined, names: ReadonlySet<string>): string | undefined {
  if (list === undefined || names.size === 0) return list;
  const kept = members(list).filter((member) => !names.has(nameOf(member) ?? ''));
  return kept.length === 0 ? undefined : kept.join(', ');
}

/** A response header as one string: Node gives numbers, strings or arrays of strings. */
export function headerText(value: number | string | readonly string[] | undefined): string | undefined {
  if (value === undefined) return undefined;
  return typeof value === 'object' ? value.join(', ') : String(value);
}
