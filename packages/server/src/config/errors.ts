import { describeValue, type FieldSet, refuseUnknownFields, TollgateError } from '@tollgate/core';

export type Fields = Record<string, unknown>;

export function isRecord(value: unknown): value is Fields {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The coded error of a bad config field, as rule files report them: `<field> <expectation> (got <value>)`. */
export function configError(field: string, expectation: string, value: unknown): TollgateError {
  return new TollgateError('ERR_TOLLGATE_INVALID_RULES', `${field} ${expectation} (got ${describeValue(value)})`, field);
}

/** Refuses a field the part at `path` does not have, naming the closest one it has. */
export function checkFields(fields: Fields, allowed: FieldSet, path: string): void {
  refuseUnknownFields(fields, allowed, path, 'ERR_TOLLGATE_INVALID_RULES');
}

/** An error of core's (a limit spec, a limiter option), its field put under `path` (`descriptors[0].`). */
export function prefixed(error: unknown, path: string): TollgateError {
  if (!(error instanceof TollgateError)) throw error;
  if (path === '' || error.field === undefined) return error;
  return new TollgateError(error.code, `${path}${error.message}`, `${path}${error.field}`, { cause: error });
}

/** Puts `who` (a file, a domain) in front of an error's message. */
export function within(error: unknown, who: string): TollgateError {
  if (!(error instanceof TollgateError)) throw error;
  return new TollgateError(error.code, `${who}: ${error.message}`, error.field, { cause: error });
}
