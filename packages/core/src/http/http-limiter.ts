import { describeValue, TollgateError } from '../errors.js';
import { consumeNowOf, limiterOf } from '../limiter.js';
import { configureLimiter } from '../limiter-config.js';
import { bindRule } from '../spec.js';
import { type ClientAddress, clientAddresses } from './client-addresses.js';
import { parseHttpConfig } from './config.js';
import { policyHeader } from './headers.js';
import { refuseForeignOptions, translateMigratedOptions } from './migrated-options.js';
import { splitInlineOptions, withDefaultPrefix } from './options.js';
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
  if ('rules' in options) {
    refuseForeignOptions(options);
    return createRuleSetHttpLimiter(options);
  }
  return createInlineHttpLimiter(translateMigratedOptions(options));
}

function createInlineHttpLimiter(options: HttpRateLimitOptions): HttpLimiter {
  const { behaviour, limiter: limiterOptions, rule } = splitInlineOptions(options);
  const config = parseHttpConfig(behaviour);
  const limits = bindRule(rule);
  const build = (prefix: string) => limiterOf(configureLimiter(rule, limits, { ...limiterOptions, prefix }));
  const limiter = limiterOptions.prefix === undefined ? withDefaultPrefix(limits, build) : build(limiterOptions.prefix);

  const { key, skip, isAllowed, ipv6Subnet } = config;
  const policy = policyHeader(limiter.limits);
  const { decide, verdictOf } = verdictMaker(config);
  const consumeNow = consumeNowOf(limiter);
  const clientOf = clientAddresses(ipv6Subnet);

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
    if (custom === undefined) return decide(limiter, policy, client.identity, client.key, info.raw);
    return decide(limiter, policy, `key:${custom}`, custom, info.raw);
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
    if (skip === undefined && key === undefined) return decideByAddress(client, info.raw);
    return checkWithCallbacks(info, client);
  }

  return {
    limiter,
    readsOnlyAddress: skip === undefined && key === undefined,
    requestPropertyName: config.requestPropertyName,
    checkNow,
    check(info) {
      const verdict = checkNow(info);
      return verdict instanceof Promise ? verdict : Promise.resolve(verdict);
    },
  };
}
