import { parseDuration } from '../duration.js';
import { describeValue, TollgateError } from '../errors.js';

/** The longest wait a reservation may be given: beyond it, a timer could not fire (2^31 - 1 ms, about 24.8 days). */
export const LONGEST_WAIT_MS = 2 ** 31 - 1;

export interface ParsedWaitOptions {
  cost: number;
  /** Whole milliseconds, or Infinity (as long as it takes). */
  maxWaitMs: number;
  signal: AbortSignal | undefined;
}

export function parseWaitOptions(options: unknown): ParsedWaitOptions {
  if (options === undefined) return { cost: 1, maxWaitMs: Number.POSITIVE_INFINITY, signal: undefined };
  if (typeof options !== 'object' || options === null) throw invalidWaitOption('options', 'must be an object', options);
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
