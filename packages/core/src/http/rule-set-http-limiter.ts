import { describeValue, TollgateError } from '../errors.js';
import { closestName, refuseUnknownFields } from '../option-fields.js';
import type { RuleClient, RuleMatch } from '../rules/rule-set.js';
import type { Cost } from '../units.js';
import { type ClientAddress, clientAddresses, UNKNOWN_ADDRESS } from './client-addresses.js';
import { parseHttpConfig } from './config.js';
import { RULE_SET_FIELDS } from './options.js';
import { policyOf } from './policies.js';
import { untrustedProxyWarning } from './proxy-check.js';
import type { HttpRequestInfo, HttpRuleSetLimiter, HttpRuleSetOptions, HttpVerdict } from './types.js';
import { verdictMaker } from './verdicts.js';

const SKIP: HttpVerdict = { action: 'skip' };
const SKIPPED = Promise.resolve(SKIP);
/**
 * The HTTP limiter of a rule set: every request is matched (method, path, client address,
 * headers, user) against the rules in force at that moment, so a reload applies to the next
 * request; the matched rule's limiter decides under the matched key, and a request no rule
 * matches passes untouched. Allow-list, skip, headers, bodies, refunds and leases work as inline.
 */
export function createRuleSetHttpLimiter(options: HttpRuleSetOptions): HttpRuleSetLimiter {
  validateRuleSetOptions(options);
  const config = parseHttpConfig(options);
  const { rules, user } = options;
  const { skip, cost, isAllowed, ipv6Subnet } = config;
  const { decide } = verdictMaker(config);
  const clientOf = clientAddresses(ipv6Subnet);

  function decideMatch(info: HttpRequestInfo, client: ClientAddress, userId: string | undefined): Promise<HttpVerdict> {
    const ip = client.address ?? UNKNOWN_ADDRESS;
    const match = rules.match({ method: info.method, path: info.path, ip, headers: info.headers, user: userId });
    if (match === undefined) return SKIPPED;
    const decideAt = (estimate?: Cost) =>
      decide(match.limiter, policyOf(match.limiter), identityIn(match, client), keyIn(match, client), info.raw, estimate);
    if (cost === undefined) return decideAt();
    return new Promise<Cost>((resolve) => resolve(cost(info.raw, info))).then(decideAt);
  }

  function identitiesOf({ ip, user, headers }: RuleClient): RuleMatch[] {
    const client = ip === undefined ? undefined : clientOf(ip);
    if (ip !== undefined && client?.address === undefined && ip !== UNKNOWN_ADDRESS) {
      throw new TollgateError('ERR_TOLLGATE_INVALID_KEY', `ip must be a client address (got ${describeValue(ip)})`, 'ip');
    }
    const matches = rules.keysOf({ ip: client === undefined ? undefined : (client.address ?? UNKNOWN_ADDRESS), user, headers });
    return client === undefined ? matches : matches.map((match) => ({ ...match, key: identityIn(match, client) }));
  }

  async function checkWithCallbacks(info: HttpRequestInfo, client: ClientAddress): Promise<HttpVerdict> {
    if (skip !== undefined && (await skip(info.raw, info))) return SKIP;
    return decideMatch(info, client, user === undefined ? undefined : userOf(await user(info.raw, info)));
  }

  return {
    rules,
    identitiesOf,
    requestPropertyName: config.requestPropertyName,
    untrustedProxy: untrustedProxyWarning(config.checkProxy, console),
    check(info) {
      const client = clientOf(info.ip);
      if (isAllowed !== undefined && client.address !== undefined && isAllowed(client.address)) return SKIPPED;
      if (skip === undefined && user === undefined) return decideMatch(info, client, undefined);
      return checkWithCallbacks(info, client);
    },
  };
}

/** Keyed by the client address: grouped by `ipv6Subnet`, as inline (requests without one share `ip:unknown`). */
function identityIn(match: RuleMatch, client: ClientAddress): string {
  return match.selector === 'ip' && client.address !== undefined ? client.identity : match.key;
}

/** What the request is told it was counted under: its address (or subnet) for an ip-keyed rule, else what the rule's key read. */
function keyIn(match: RuleMatch, client: ClientAddress): string {
  return match.selector === 'ip' && client.address !== undefined ? client.key : match.value;
}

function validateRuleSetOptions(options: HttpRuleSetOptions): void {
  const { rules, user } = options;
  if (typeof rules !== 'object' || rules === null || typeof rules.match !== 'function') {
    throw new TollgateError(
      'ERR_TOLLGATE_INVALID_OPTION',
      `rules must be a rule set from loadRuleSet(path), createRuleSet(document) or loadRedisRuleSet(options) (got ${describeValue(rules)})`,
      'rules',
    );
  }
  if (user !== undefined && typeof user !== 'function') {
    throw new TollgateError('ERR_TOLLGATE_INVALID_OPTION', `user must be a function (got ${describeValue(user)})`, 'user');
  }
  for (const field of Object.keys(options)) {
    if (field === 'key') {
      throw new TollgateError(
        'ERR_TOLLGATE_INVALID_OPTION',
        'key cannot be combined with rules: every rule names its own key (ip, user, apiKey or { header })',
        'key',
      );
    }
    // A name close to one a rule set takes is a misspelling; another is an option of inline rules.
    if (!Object.hasOwn(RULE_SET_FIELDS, field) && closestName(field, Object.keys(RULE_SET_FIELDS)) !== undefined) {
      refuseUnknownFields(options, RULE_SET_FIELDS);
    }
    if (!Object.hasOwn(RULE_SET_FIELDS, field)) {
      throw new TollgateError(
        'ERR_TOLLGATE_INVALID_OPTION',
        `${field} cannot be combined with rules: the rule set gives every rule its limits, store and options`,
        field,
      );
    }
  }
}

function userOf(value: unknown): string | undefined {
  if (value === undefined || typeof value === 'string') return value;
  throw new TollgateError('ERR_TOLLGATE_INVALID_KEY', `user() must return a string or undefined (got ${describeValue(value)})`, 'user');
}
