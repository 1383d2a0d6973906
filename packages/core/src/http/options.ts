import { createHash } from 'node:crypto';
import { describeValue, TollgateError } from '../errors.js';
import type { BoundLimit } from '../stores/store.js';
import type { HeaderStyle, HttpBehaviourOptions, ResponseType } from './types.js';

/** The option names of `HttpBehaviourOptions`: everything else goes to `createLimiter`. */
export const HTTP_FIELDS: ReadonlySet<string> = new Set([
  'key',
  'skip',
  'allowList',
  'ipv6Subnet',
  'headers',
  'responseType',
  'message',
  'statusCode',
  'storeErrorStatusCode',
  'skipFailedRequests',
  'skipSuccessfulRequests',
  'handler',
]);

const HEADER_STYLES: readonly (HeaderStyle | false)[] = ['draft', 'draft+legacy', 'legacy', false];
const RESPONSE_TYPES: readonly ResponseType[] = ['text', 'json', 'problem+json'];

function invalid(field: string, expectation: string, value: unknown): TollgateError {
  return new TollgateError('ERR_TOLLGATE_INVALID_OPTION', `${field} ${expectation} (got ${describeValue(value)})`, field);
}

/** Checks the HTTP options (not the rule: createLimiter does that). */
export function validateBehaviour(options: HttpBehaviourOptions): void {
  for (const field of ['key', 'skip', 'handler'] as const) {
    if (options[field] !== undefined && typeof options[field] !== 'function') throw invalid(field, 'must be a function', options[field]);
  }
  const { ipv6Subnet, headers, responseType, message } = options;
  if (ipv6Subnet !== undefined && ipv6Subnet !== false && !(Number.isInteger(ipv6Subnet) && ipv6Subnet >= 1 && ipv6Subnet <= 128)) {
    throw invalid('ipv6Subnet', 'must be a whole number from 1 to 128, or false', ipv6Subnet);
  }
  if (headers !== undefined && !HEADER_STYLES.includes(headers)) {
    throw invalid('headers', "must be 'draft', 'draft+legacy', 'legacy' or false", headers);
  }
  if (responseType !== undefined && !RESPONSE_TYPES.includes(responseType)) {
    throw invalid('responseType', "must be 'text', 'json' or 'problem+json'", responseType);
  }
  if (message !== undefined && !['string', 'object', 'function'].includes(typeof message)) {
    throw invalid('message', 'must be a string, an object or a function', message);
  }
  for (const field of ['statusCode', 'storeErrorStatusCode'] as const) {
    const status = options[field];
    if (status !== undefined && !(Number.isInteger(status) && status >= 400 && status <= 599)) {
      throw invalid(field, 'must be a whole number from 400 to 599', status);
    }
  }
  for (const field of ['skipFailedRequests', 'skipSuccessfulRequests'] as const) {
    if (options[field] !== undefined && typeof options[field] !== 'boolean') throw invalid(field, 'must be a boolean', options[field]);
  }
}

const rulesSeen = new Map<string, number>();

/**
 * A storage prefix of its own for every rule, so identities of different rules never share
 * state: a digest of the rule's limits, plus `-<n>` for the n-th identical rule built in this
 * process. Processes running the same code derive the same prefixes; give `prefix` explicitly
 * to share a rule's state across different code.
 */
export function defaultPrefix(limits: readonly BoundLimit[]): string {
  const digest = createHash('sha256')
    .update(JSON.stringify(limits.map((limit) => [limit.name, ...limit.luaArgs])))
    .digest('base64url')
    .slice(0, 12);
  const seen = (rulesSeen.get(digest) ?? 0) + 1;
  rulesSeen.set(digest, seen);
  return seen === 1 ? `tollgate:${digest}` : `tollgate:${digest}-${seen}`;
}
