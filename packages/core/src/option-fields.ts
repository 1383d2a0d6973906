import { describeValue, TollgateError, type TollgateErrorCode } from './errors.js';

/**
 * The fields an options object accepts, one entry per key of its type: declare it with
 * `satisfies Record<keyof XOptions, true>` so the compiler keeps it in step with the type.
 */
export type FieldSet = Readonly<Record<string, true>>;

/**
 * Refuses an options object holding a field it does not take, naming it under `path`
 * (`breaker.` puts `coolDown` at `breaker.coolDown`) and the closest field it does take.
 * Fields whose value is `undefined` are refused too: a misspelt name is a mistake whatever its value.
 */
export function refuseUnknownFields(
  options: object,
  fields: FieldSet,
  path = '',
  code: TollgateErrorCode = 'ERR_TOLLGATE_INVALID_OPTION',
): void {
  // for...in, not Object.keys: a call's options are checked on every call, and this allocates nothing until it refuses.
  for (const field in options) {
    if (Object.hasOwn(fields, field) || !Object.hasOwn(options, field)) continue;
    const closest = closestName(field, Object.keys(fields));
    const hint = closest === undefined ? `takes ${listNames(Object.keys(fields))}` : `did you mean ${closest}?`;
    const value = (options as Record<string, unknown>)[field];
    throw new TollgateError(code, `${path}${field} is not an option here: ${hint} (got ${describeValue(value)})`, `${path}${field}`);
  }
}

/**
 * The candidate a misspelling most likely meant: the same name in another case, else the one
 * within a third of the longer name's length in edits (insertions, deletions, substitutions, swaps of two
 * neighbours), the fewest edits first; undefined when none is that close.
 */
export function closestName(name: string, candidates: readonly string[]): string | undefined {
  const lower = name.toLowerCase();
  const sameLetters = candidates.find((candidate) => candidate.toLowerCase() === lower);
  if (sameLetters !== undefined) return sameLetters;
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const candidate of candidates) {
    const allowed = Math.max(1, Math.floor(Math.max(name.length, candidate.length) / 3));
    const distance = editDistance(lower, candidate.toLowerCase());
    if (distance <= allowed && distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

/** Optimal string alignment distance: Levenshtein plus the swap of two neighbouring letters. */
function editDistance(a: string, b: string): number {
  const rows: number[][] = [];
  for (let i = 0; i <= a.length; i++) rows.push([i]);
  for (let j = 1; j <= b.length; j++) rows[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    const row = rows[i]!;
    const above = rows[i - 1]!;
    for (let j = 1; j <= b.length; j++) {
      const substitution = above[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1);
      let distance = Math.min(above[j]! + 1, row[j - 1]! + 1, substitution);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) distance = Math.min(distance, rows[i - 2]![j - 2]! + 1);
      row[j] = distance;
    }
  }
  return rows[a.length]![b.length]!;
}

function listNames(names: readonly string[]): string {
  return names.length === 0 ? 'no options' : names.join(', ');
}
