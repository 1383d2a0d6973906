import type { Decision } from '../decision.js';
import { describeValue, TollgateError } from '../errors.js';
import { type CreateLimiterOptions, createLimiter } from '../limiter.js';
import { compileAllowList } from './allow-list.js';
import { ceilSeconds, decisionHeaders, policyHeader } from './headers.js';
import { ipIdentity, normaliseIp } from './ip.js';
import { NOTHING_TO_SETTLE } from './node-response.js';
import { defaultPrefix, HTTP_FIELDS, validateBehaviour } from './options.js';
import { rejectBody } from './reject-body.js';
import type { HttpBehaviourOptions, HttpLimiter, HttpRateLimitOptions, HttpRequestInfo, HttpVerdict } from './types.js';

const SKIP: HttpVerdict = { action: 'skip' };
/** Requests whose client address is unknown (socket already gone) share this identity. */
const UNKNOWN_IP = 'ip:unknown';

/** Builds the framework-neutral HTTP limiter that the Express, Koa and Nest adapters translate to and from. */
export function createHttpLimiter(options: HttpRateLimitOptions): HttpLimiter {
  if (typeof options !== 'object' || options === null) {
    throw new TollgateError('ERR_TOLLGATE_INVALID_SPEC', `options must be an object (got ${describeValue(options)})`, 'options');
  }
  const behaviour = options as HttpBehaviourOptions;
  validateBehaviour(behaviour);
  const limiterOptions = Object.fromEntries(Object.entries(options).filter(([field]) => !HTTP_FIELDS.has(field))) as CreateLimiterOptions;
  const prefix = limiterOptions.prefix ?? defaultPrefix(createLimiter(limiterOptions).limits);
  const limiter = createLimiter({ ...limiterOptions, prefix });

  const { key, skip, message, skipFailedRequests = false, skipSuccessfulRequests = false } = behaviour;
  const isAllowed = compileAllowList(behaviour.allowList);
  const subnet = behaviour.ipv6Subnet ?? 64;
  const style = behaviour.headers ?? 'draft';
  const responseType = behaviour.responseType ?? 'text';
  const status = behaviour.statusCode ?? 429;
  const storeErrorStatus = behaviour.storeErrorStatusCode ?? 503;
  const policy = policyHeader(limiter.limits);
  const clock = limiterOptions.clock ?? Date.now;
  const refunds = skipFailedRequests || skipSuccessfulRequests;

  function ipKey(address: string | undefined): string {
    return address === undefined ? UNKNOWN_IP : `ip:${ipIdentity(address, subnet)}`;
  }

  async function identify(info: HttpRequestInfo, address: string | undefined): Promise<string> {
    const custom = key === undefined ? undefined : await key(info.raw, info);
    if (custom === undefined) return ipKey(address);
    if (typeof custom !== 'string' || custom === '') {
      throw new TollgateError(
        'ERR_TOLLGATE_INVALID_KEY',
        `key() must return a non-empty string or undefined (got ${describeValue(custom)})`,
        'key',
      );
    }
    return `key:${custom}`;
  }

  /** What happens once the response is over: the concurrency slot is freed, the refund options apply. */
  function settler(identity: string, decision: Decision): (statusCode: number | undefined) => void {
    const { lease } = decision;
    if (!refunds && lease === undefined) return NOTHING_TO_SETTLE;
    let settled = false;
    return (statusCode) => {
      if (settled) return;
      settled = true;
      // Failures here leave the slot to its leaseTtl and the request counted: what happens without them.
      if (lease !== undefined) limiter.release(lease).catch(() => {});
      const failed = statusCode === undefined || statusCode >= 400;
      if (refunds && (failed ? skipFailedRequests : skipSuccessfulRequests)) {
        limiter.refund(identity, { cost: 1 }).catch(() => {});
      }
    };
  }

  function passVerdict(decision: Decision, identity: string): HttpVerdict {
    const headers = decisionHeaders(style, policy, decision, clock);
    if (decision.delayMs > 0) headers.push(['Retry-After', String(ceilSeconds(decision.delayMs))]);
    return { action: 'pass', decision, headers, delayMs: decision.delayMs, settle: settler(identity, decision) };
  }

  function rejectVerdict(decision: Decision, raw: unknown): HttpVerdict {
    const headers = decisionHeaders(style, policy, decision, clock);
    if (Number.isFinite(decision.retryAfterMs)) headers.push(['Retry-After', String(ceilSeconds(decision.retryAfterMs))]);
    headers.push(['Cache-Control', 'no-store']);
    const code = decision.source === 'policy' ? storeErrorStatus : status;
    return { action: 'reject', decision, status: code, headers, ...rejectBody(message, responseType, code, raw, decision) };
  }

  async function decide(identity: string, raw: unknown): Promise<HttpVerdict> {
    const decision = await limiter.consume(identity);
    return decision.allowed ? passVerdict(decision, identity) : rejectVerdict(decision, raw);
  }

  async function checkWithCallbacks(info: HttpRequestInfo, address: string | undefined): Promise<HttpVerdict> {
    if (skip !== undefined && (await skip(info.raw, info))) return SKIP;
    return decide(await identify(info, address), info.raw);
  }

  return {
    limiter,
    check(info) {
      const address = info.ip === undefined ? undefined : normaliseIp(info.ip);
      if (isAllowed !== undefined && address !== undefined && isAllowed(address)) return Promise.resolve(SKIP);
      // The common case, no callbacks, stays free of extra promises.
      if (skip === undefined && key === undefined) return decide(ipKey(address), info.raw);
      return checkWithCallbacks(info, address);
    },
  };
}
