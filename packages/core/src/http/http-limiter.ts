import { describeValue, TollgateError } from '../errors.js';
import { consumeNowOf, limiterOf, variantsOf } from '../limiter.js';
import { configureLimiter } from '../limiter-config.js';
import type { LimiterOptions } from '../limiter-types.js';
import { refuseUnknownFields } from '../option-fields.js';
import { bindRule, type RuleSpec } from '../spec.js';
import { type ClientAddress, clientAddresses } from './client-addresses.js';
import { parseHttpConfig } from './config.js';
import { identityMapper, KEY_PREFIX } from './identities.js';
import { refuseForeignOptions, translateMigratedOptions } from './migrated-options.js';
import { INLINE_FIELDS, splitInlineOptions, withDefaultPrefix } from './options.js';
import { limiterChooser, splitPerRequest } from './per-request.js';
import { policyOf } from './policies.js';
import { untrustedProxyWarning } from './proxy-check.js';
import { createRuleSetHttpLimiter } from './rule-set-http-limiter.js';
import type { HttpLimiter, HttpRateLimitOptions, HttpRequestInfo, HttpRuleSetLimiter, HttpRuleSetOptions, HttpVerdict } from './types.js';
import { verdictMaker } from './verdicts.js';

const SKIP: HttpVerdict = { action: 'skip' };

/**
 * Builds the framework-neutral HTTP limiter that the Express, Koa and Nest adapters translate to
 * and from: of one rule given inline, or of a rule set (`{ rules }`), one entry point for both so
 * an adapter hands its options over as they come.
 */
export function createHttpLimiter(options: HttpRateLimitOptions): HttpLimiter;
export function createHttpLimiter(options: HttpRuleSetOptions): HttpRuleSetLimiter;
export function createHttpLimiter(options: HttpRateLimitOptions | HttpRuleSetOptions): HttpLimiter | HttpRuleSetLimiter;
export function createHttpLimiter(options: HttpRateLimitOptions | HttpRuleSetOptions): HttpLimiter | HttpRuleSetLimiter {
  if (typeof options !== 'object' || options === null) {
    throw new TollgateError('ERR_TOLLGATE_INVALID_SPEC', `options must be an object (got ${describeValue(options)})`, 'options');
  }
  refuseForeignOptions(options);
  if ('rules' in options) return createRuleSetHttpLimiter(options);
  // A misspelt name is named as written, before a rule missing what it meant to give is refused.
  refuseUnknownFields(options, INLINE_FIELDS, 'spec.', 'ERR_TOLLGATE_INVALID_SPEC');
  return createInlineHttpLimiter(translateMigratedOptions(options));
}

function createInlineHttpLimiter(options: HttpRateLimitOptions): HttpLimiter {
  const { behaviour, limiter: limiterOptions, rule } = splitInlineOptions(options);
  const config = parseHttpConfig(behaviour);
  const { key, cost, skip, isAllowed, ipv6Subnet } = config;
  const clientOf = clientAddresses(ipv6Subnet);
  const identityOf = identityMapper(key !== undefined, clientOf, ipv6Subnet);
  const { limiter, choose } = inlineLimiter(rule, limiterOptions, identityOf);
  const policy = policyOf(limiter);
  const { decide, verdictOf } = verdictMaker(config);
  const consumeNow = consumeNowOf(limiter);
  const readsOnlyAddress = skip === undefined && key === undefined && choose === undefined && cost === undefined;

  /** The key the request is counted under (its identity is `key:<key>`), or undefined for the client address. */
  async function customKey(info: HttpRequestInfo): Promise<string | undefined> {
    const custom = key === undefined ? undefined : await key(info.raw, info);
    // '' usually comes from the client (an empty `x-api-key:` header): limit it by its address, never answer 500.
    if (custom === undefined || custom === '') return undefined;
    if (typeof custom !== 'string') {
      throw new TollgateError('ERR_TOLLGATE_INVALID_KEY', `key() must return a string or undefined (got ${describeValue(custom)})`, 'key');
    }
    return custom;
  }

  async function checkWithCallbacks(info: HttpRequestInfo, client: ClientAddress): Promise<HttpVerdict> {
    if (skip !== undefined && (await skip(info.raw, info))) return SKIP;
    const custom = await customKey(info);
    const identity = custom === undefined ? client.identity : `${KEY_PREFIX}${custom}`;
    const shown = custom ?? client.key;
    const estimate = cost === undefined ? undefined : await cost(info.raw, info);
    const chosen = choose === undefined ? limiter : await choose(info.raw, info);
    return decide(chosen, chosen === limiter ? policy : policyOf(chosen), identity, shown, info.raw, estimate);
  }

  /** The common case, no callbacks: on the memory store, free of promises unless the request is rejected. */
  function decideByAddress({ identity, key: clientKey }: ClientAddress, raw: unknown): HttpVerdict | Promise<HttpVerdict> {
    if (consumeNow === undefined) return decide(limiter, policy, identity, clientKey, raw);
    try {
      return verdictOf(limiter, policy, consumeNow(identity), identity, clientKey, raw);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  function checkNow(info: HttpRequestInfo): HttpVerdict | Promise<HttpVerdict> {
    const client = clientOf(info.ip);
    if (isAllowed !== undefined && client.address !== undefined && isAllowed(client.address)) return SKIP;
    if (readsOnlyAddress) return decideByAddress(client, info.raw);
    return checkWithCallbacks(info, client);
  }

  return {
    limiter,
    identityOf,
    resetKey: (keyOrAddress) => limiter.reset(keyOrAddress).then(() => undefined),
    readsOnlyAddress,
    requestPropertyName: config.requestPropertyName,
    untrustedProxy: untrustedProxyWarning(config.checkProxy, limiterOptions.logger ?? console),
    checkNow,
    check(info) {
      const verdict = checkNow(info);
      return verdict instanceof Promise ? verdict : Promise.resolve(verdict);
    },
  };
}

/**
 * The core limiter of an inline rule, keys mapped by `identityOf`, and, when counts or rates of
 * the rule are functions of the request, what chooses the limiter of each request (the rule's
 * limiter then refuses what needs those values: see `LimiterConfig.chosenPerCall`).
 */
function inlineLimiter(rule: RuleSpec, options: LimiterOptions, identityOf: (key: string) => string) {
  const { bindable, fields } = splitPerRequest(rule);
  const limits = bindRule(bindable);
  const chosenPerCall = fields.length > 0 ? fields : undefined;
  const build = (prefix: string) =>
    limiterOf({ ...configureLimiter(bindable, limits, { ...options, prefix }), keyOf: identityOf, chosenPerCall });
  const limiter = options.prefix === undefined ? withDefaultPrefix(limits, options.store, build) : build(options.prefix);
  const choose = chosenPerCall === undefined ? undefined : limiterChooser(fields, limiter, variantsOf(limiter)!);
  return { limiter, choose };
}
