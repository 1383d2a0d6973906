import { describeValue, TollgateError } from '../errors.js';
import { consumeNowOf, limiterOf } from '../limiter.js';
import { configureLimiter } from '../limiter-config.js';
import { bindRule } from '../spec.js';
import { parseHttpConfig } from './config.js';
import { policyHeader } from './headers.js';
import { ipIdentity, normaliseIp } from './ip.js';
import { refuseForeignOptions, translateMigratedOptions } from './migrated-options.js';
import { splitInlineOptions, withDefaultPrefix } from './options.js';
import { createRuleSetHttpLimiter } from './rule-set-http-limiter.js';
import type { HttpLimiter, HttpRateLimitOptions, HttpRequestInfo, HttpRuleSetLimiter, HttpRuleSetOptions, HttpVerdict } from './types.js';
import { verdictMaker } from './verdicts.js';

const SKIP: HttpVerdict = { action: 'skip' };
/** Requests whose client address is unknown (socket already gone) share this identity. */
const UNKNOWN_IP = 'ip:unknown';

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

  function ipKey(address: string | undefined): string {
    return address === undefined ? UNKNOWN_IP : `ip:${ipIdentity(address, ipv6Subnet)}`;
  }

  async function identify(info: HttpRequestInfo, address: string | undefined): Promise<string> {
    const custom = key === undefined ? undefined : await key(info.raw, info);
    // '' usually comes from the client (an empty `x-api-key:` header): limit it by its address, never answer 500.
    if (custom === undefined || custom === '') return ipKey(address);
    if (typeof custom !== 'string') {
      throw new TollgateError('ERR_TOLLGATE_INVALID_KEY', `key() must return a string or undefined (got ${describeValue(custom)})`, 'key');
    }
    return `key:${custom}`;
  }

  async function checkWithCallbacks(info: HttpRequestInfo, address: string | undefined): Promise<HttpVerdict> {
    if (skip !== undefined && (await skip(info.raw, info))) return SKIP;
    return decide(limiter, policy, await identify(info, address), info.raw);
  }

  /** The common case, no callbacks: on the memory store, free of promises unless the request is rejected. */
  function decideByAddress(address: string | undefined, raw: unknown): HttpVerdict | Promise<HttpVerdict> {
    const identity = ipKey(address);
    if (consumeNow === undefined) return decide(limiter, policy, identity, raw);
    try {
      return verdictOf(limiter, policy, consumeNow(identity), identity, raw);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  function checkNow(info: HttpRequestInfo): HttpVerdict | Promise<HttpVerdict> {
    const address = info.ip === undefined ? undefined : normaliseIp(info.ip);
    if (isAllowed !== undefined && address !== undefined && isAllowed(address)) return SKIP;
    if (skip === undefined && key === undefined) return decideByAddress(address, info.raw);
    return checkWithCallbacks(info, address);
  }

  return {
    limiter,
    readsOnlyAddress: skip === undefined && key === undefined,
    checkNow,
    check(info) {
      const verdict = checkNow(info);
      return verdict instanceof Promise ? verdict : Promise.resolve(verdict);
    },
  };
}
