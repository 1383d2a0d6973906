import { describeValue, TollgateError } from '../errors.js';
import { closestName } from '../option-fields.js';
import { compileAllowList } from './allow-list.js';
import type { HeaderPlan } from './headers.js';
import type { DraftVersion, HeaderStyle, HttpBehaviourOptions, ResponseType } from './types.js';

/**
 * The HTTP options parsed once: checked, defaults filled in, the allow list compiled. Every option
 * is here (an option added to `HttpBehaviourOptions` must be), but `handler`, which only adapters
 * call, and `allowList`, compiled into `isAllowed`.
 */
export interface HttpConfig extends Record<Exclude<keyof HttpBehaviourOptions, 'handler' | 'allowList'>, unknown> {
  readonly key: HttpBehaviourOptions['key'];
  readonly skip: HttpBehaviourOptions['skip'];
  readonly cost: HttpBehaviourOptions['cost'];
  /** True for a (normalised) address `allowList` exempts; undefined without an allow list. */
  readonly isAllowed: ((address: string) => boolean) | undefined;
  readonly ipv6Subnet: number | false;
  readonly headers: HeaderPlan;
  readonly requestPropertyName: string;
  readonly requestWasSuccessful: HttpBehaviourOptions['requestWasSuccessful'];
  readonly responseType: ResponseType;
  readonly message: HttpBehaviourOptions['message'];
  readonly statusCode: number;
  readonly storeErrorStatusCode: number;
  readonly checkProxy: boolean;
  readonly skipFailedRequests: boolean;
  readonly skipSuccessfulRequests: boolean;
}

const draft = (version: DraftVersion, legacy: boolean): HeaderPlan => ({ draft: version, legacy });
/** Every `headers` value but false, and the fields it sends; the compiler holds it to `HeaderStyle`. */
const HEADER_STYLES = {
  draft: draft('draft-11', false),
  'draft+legacy': draft('draft-11', true),
  'draft-11': draft('draft-11', false),
  'draft-11+legacy': draft('draft-11', true),
  'draft-8': draft('draft-8', false),
  'draft-8+legacy': draft('draft-8', true),
  'draft-7': draft('draft-7', false),
  'draft-7+legacy': draft('draft-7', true),
  'draft-6': draft('draft-6', false),
  'draft-6+legacy': draft('draft-6', true),
  legacy: { draft: undefined, legacy: true },
} as const satisfies Record<HeaderStyle, HeaderPlan>;
const RESPONSE_TYPES: readonly ResponseType[] = ['text', 'json', 'problem+json'];

function invalid(field: string, expectation: string, value: unknown): TollgateError {
  return new TollgateError('ERR_TOLLGATE_INVALID_OPTION', `${field} ${expectation} (got ${describeValue(value)})`, field);
}

/** Checks the HTTP options (not the rule: `bindRule` and `createLimiter` do that) and fills in their defaults. */
export function parseHttpConfig(options: HttpBehaviourOptions): HttpConfig {
  checkBehaviour(options);
  return {
    key: options.key,
    skip: options.skip,
    cost: options.cost,
    isAllowed: compileAllowList(options.allowList),
    ipv6Subnet: options.ipv6Subnet ?? 64,
    headers: options.headers === false ? false : HEADER_STYLES[options.headers ?? 'draft'],
    requestPropertyName: options.requestPropertyName ?? 'rateLimit',
    requestWasSuccessful: options.requestWasSuccessful,
    responseType: options.responseType ?? 'text',
    message: options.message,
    statusCode: options.statusCode ?? 429,
    storeErrorStatusCode: options.storeErrorStatusCode ?? 503,
    checkProxy: options.checkProxy ?? true,
    skipFailedRequests: options.skipFailedRequests ?? false,
    skipSuccessfulRequests: options.skipSuccessfulRequests ?? false,
  };
}

function checkBehaviour(options: HttpBehaviourOptions): void {
  for (const field of ['key', 'cost', 'skip', 'handler', 'requestWasSuccessful'] as const) {
    if (options[field] !== undefined && typeof options[field] !== 'function') throw invalid(field, 'must be a function', options[field]);
  }
  const { ipv6Subnet, headers, responseType, message } = options;
  if (ipv6Subnet !== undefined && ipv6Subnet !== false && !(Number.isInteger(ipv6Subnet) && ipv6Subnet >= 1 && ipv6Subnet <= 128)) {
    throw invalid('ipv6Subnet', 'must be a whole number from 1 to 128, or false', ipv6Subnet);
  }
  if (headers !== undefined && headers !== false && !(typeof headers === 'string' && Object.hasOwn(HEADER_STYLES, headers))) {
    const closest = typeof headers === 'string' ? closestName(headers, Object.keys(HEADER_STYLES)) : undefined;
    const valid = `${Object.keys(HEADER_STYLES)
      .map((style) => `'${style}'`)
      .join(', ')} or false`;
    throw invalid('headers', closest === undefined ? `must be ${valid}` : `must be ${valid}: did you mean '${closest}'?`, headers);
  }
  const { requestPropertyName } = options;
  if (requestPropertyName !== undefined && (typeof requestPropertyName !== 'string' || requestPropertyName === '')) {
    throw invalid('requestPropertyName', 'must be a non-empty string', requestPropertyName);
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
  for (const field of ['checkProxy', 'skipFailedRequests', 'skipSuccessfulRequests'] as const) {
    if (options[field] !== undefined && typeof options[field] !== 'boolean') throw invalid(field, 'must be a boolean', options[field]);
  }
}
