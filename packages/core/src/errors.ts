/** Error codes thrown by Tollgate. Stable: match on `code`, not on the message. */
export type TollgateErrorCode =
  | 'ERR_TOLLGATE_INVALID_SPEC'
  | 'ERR_TOLLGATE_INVALID_COST'
  | 'ERR_TOLLGATE_INVALID_KEY'
  | 'ERR_TOLLGATE_INVALID_OPTION'
  | 'ERR_TOLLGATE_INVALID_RULES'
  | 'ERR_TOLLGATE_STORE'
  | 'ERR_TOLLGATE_WAIT_TIMEOUT'
  /** An operation on a limiter whose limit is chosen per request, before `withLimits` chose it. */
  | 'ERR_TOLLGATE_LIMIT_NOT_CHOSEN';

export class TollgateError extends Error {
  readonly code: TollgateErrorCode;
  /** The offending field, as a path such as `limits[1].burst`, when one is to blame. */
  readonly field: string | undefined;

  constructor(code: TollgateErrorCode, message: string, field?: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'TollgateError';
    this.code = code;
    this.field = field;
  }
}

/** The longest a value is shown in a message: an options object may hold a limiter, or a whole script. */
const SHOWN_LENGTH = 80;

/** A value as a message shows it: its JSON (a function as `[function name]`), cut to a short length. */
export function describeValue(value: unknown): string {
  const text = valueText(value);
  return text.length <= SHOWN_LENGTH ? text : `${text.slice(0, SHOWN_LENGTH - 1)}…`;
}

function valueText(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean' || value == null) return String(value);
  if (typeof value === 'function') return `[function ${value.name || 'anonymous'}]`;
  try {
    return JSON.stringify(value) ?? typeof value;
  } catch {
    return typeof value;
  }
}

export function invalidSpec(field: string, expectation: string, value: unknown): TollgateError {
  return new TollgateError('ERR_TOLLGATE_INVALID_SPEC', `${field} ${expectation} (got ${describeValue(value)})`, field);
}

/**
 * The `ERR_TOLLGATE_INVALID_OPTION` error of a bad option, naming its field:
 * `<field> <expectation> (got <value>)`. Integrations use it for options of their own.
 */
export function invalidOption(field: string, expectation: string, value: unknown): TollgateError {
  return new TollgateError('ERR_TOLLGATE_INVALID_OPTION', `${field} ${expectation} (got ${describeValue(value)})`, field);
}
