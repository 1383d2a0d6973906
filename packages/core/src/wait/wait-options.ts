import { parseDuration } from '../duration.js';
import { describeValue, TollgateError } from '../errors.js';
import { refuseUnknownFields } from '../option-fields.js';

/** The longest wait a reservation may be given: beyond it, a timer could not fire (2^31 - 1 ms, about 24.8 days). */
export const LONGEST_WAIT_MS = 2 ** 31 - 1;

export interface WaitOptions {
  /** Units this job takes (a whole number >= 1). Default 1. */
  cost?: number;
  /**
   * The longest the caller will wait, in ms or as a duration ('2s'). A wait that would last
   * longer is rejected at once with `ERR_TOLLGATE_WAIT_TIMEOUT`. Default Infinity; 0 never waits.
   */
  maxWait?: number | string;
  /** Aborting rejects the wait with the signal's reason and gives back what it had reserved. */
  signal?: AbortSignal;
}

/** One entry per option of `WaitOptions`: the compiler refuses this object when one is missing. */
const WAIT_FIELDS = { cost: true, maxWait: true, signal: true } as const satisfies Record<keyof WaitOptions, true>;

export interface ParsedWaitOptions {
  cost: number;
  /** Whole milliseconds, or Infinity (as long as it takes). */
  maxWaitMs: number;
  signal: AbortSignal | undefined;
}

export function parseWaitOptions(options: unknown): ParsedWaitOptions {
  if (options === undefined) return { cost: 1, maxWaitMs: Number.POSITIVE_INFINITY, signal: undefined };
  if (typeof options !== 'object' || options === null) throw invalidWaitOption('options', 'must be an object', options);
  // A misspelt maxWait would otherwise wait without bound.
  refuseUnknownFields(options, WAIT_FIELDS);
  const { cost = 1, maxWait, signal } = options as Record<string, unknown>;
  if (typeof cost !== 'number' || !Number.isSafeInteger(cost) || cost < 1) {
    throw new TollgateError('ERR_TOLLGATE_INVALID_COST', `cost must be a whole number >= 1 (got ${describeValue(cost)})`, 'cost');
  }
  if (signal !== undefined && !(signal instanceof AbortSignal)) throw invalidWaitOption('signal', 'must be an AbortSignal', signal);
  return { cost, maxWaitMs: parseMaxWait(maxWait), signal };
}

function parseMaxWait(maxWait: unknown): number {
  if (maxWait === undefined || maxWait === Number.POSITIVE_INFINITY) return Number.POSITIVE_INFINITY;
  if (maxWait === 0) return 0;
  try {
    return parseDuration(maxWait, 'maxWait');
  } catch {
    throw invalidWaitOption('maxWait', "must be 0, Infinity or a duration such as 500 or '2s'", maxWait);
  }
}

function invalidWaitOption(field: string, expectation: string, value: unknown): TollgateError {
  return new TollgateError('ERR_TOLLGATE_INVALID_OPTION', `${field} ${expectation} (got ${describeValue(value)})`, field);
}

export function waitTimeout(key: string, why: string): TollgateError {
  return new TollgateError('ERR_TOLLGATE_WAIT_TIMEOUT', `wait for ${JSON.stringify(key)} would exceed maxWait: ${why}`, 'maxWait');
}
