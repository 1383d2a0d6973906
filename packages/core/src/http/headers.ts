import type { Decision, LimitDecision } from '../decision.js';
import type { BoundLimit } from '../stores/store.js';
import { DEFAULT_UNIT } from '../units.js';
import { draft6Headers, draft7Headers, draft8Headers } from './draft-headers.js';
import { ceilSeconds } from './seconds.js';
import type { DraftVersion } from './types.js';

export { ceilSeconds };

/**
 * The names of the fields Tollgate sets, in lower case as HTTP/2 and HTTP/3 always send them
 * (names are case-insensitive, RFC 9110 §5.1). Node's `setHeader` lower-cases a name to store
 * it: a name already in lower case costs it no new string to hash and intern (callgrind: two
 * `setHeader` calls, 6.5k instructions with `RateLimit-Policy` and `RateLimit`, 5.2k in lower case).
 */
export const FIELD = {
  policy: 'ratelimit-policy',
  rateLimit: 'ratelimit',
  retryAfter: 'retry-after',
  cacheControl: 'cache-control',
  limit: 'x-ratelimit-limit',
  remaining: 'x-ratelimit-remaining',
  reset: 'x-ratelimit-reset',
} as const;

/**
 * `RateLimit-Policy` (draft-ietf-httpapi-ratelimit-headers-11), one list member per limit:
 * `"name";q=<quota>;w=<window seconds>`, or `"name";q=<slots>;qu="concurrent-requests"` for a
 * concurrency limit, which has no time window; a limit counting another unit than requests says
 * which with `qu` (`qu="tokens"`: the draft registers `requests`, `content-bytes` and
 * `concurrent-requests`; any other unit name is sent as it is, as an unregistered quota unit). `q` is what the limit admits at once (in reserve
 * mode the burst plus what it may borrow), the same units `r` counts; a count that never resets
 * (`window: 'forever'`) has no `w`. It never changes for a rule, so it is built once. A window shorter than a second, or not a whole number of seconds,
 * is rounded up: the policy then understates the rate, and a client that follows it is never limited.
 */
export function policyHeader(limits: readonly BoundLimit[]): string {
  return limits
    .map((limit) => {
      const { quota, windowMs, unit } = limit.algorithm.policy(limit.params);
      const item = `"${limit.name}";q=${Math.floor(quota)}`;
      if (unit === 'concurrent-requests') return `${item};qu="concurrent-requests"`;
      const counted = limit.unit === DEFAULT_UNIT ? item : `${item};qu="${limit.unit}"`;
      // A count that never resets has no window: `w` is optional (-11 §2.1), and must not be 0.
      return Number.isFinite(windowMs) ? `${counted};w=${Math.max(1, ceilSeconds(windowMs))}` : counted;
    })
    .join(', ');
}

/**
 * The `Retry-After` seconds a response to this decision carries: the wait of a denial, or the
 * delay of a shaped (held) admission; undefined when there is none to tell.
 */
export function retryAfterSeconds(decision: Decision): number | undefined {
  if (decision.allowed) return decision.delayMs > 0 ? ceilSeconds(decision.delayMs) : undefined;
  return Number.isFinite(decision.retryAfterMs) ? ceilSeconds(decision.retryAfterMs) : undefined;
}

/**
 * The effective window `t` of one limit, in ms (-11 §4.1.2: the time within which the client can
 * use no more than `r`). With units left: until the limit is full again. Exhausted: until one
 * unit is back (a denial's own wait, or what the algorithm's policy tells), never later. Omitted
 * when that is unknown or never (a limit of 0, a count that never resets), and for concurrency,
 * which has no time window.
 */
function effectiveWindowMs(part: LimitDecision): number | undefined {
  const { policy } = part;
  if (policy.unit === 'concurrent-requests' || part.limit === 0) return undefined;
  let windowMs: number | undefined;
  if (part.remaining > 0) windowMs = part.resetAfterMs;
  else if (!part.allowed && Number.isFinite(part.retryAfterMs)) windowMs = part.retryAfterMs;
  else windowMs = policy.refillMs === undefined ? undefined : Math.max(0, part.resetAfterMs - policy.refillMs);
  return windowMs !== undefined && Number.isFinite(windowMs) ? windowMs : undefined;
}

/**
 * `RateLimit`: `"name";r=<remaining>;t=<effective window seconds>` for every limit. On a response
 * that also carries `Retry-After`, no `t` ends later than it (-11 §6).
 */
export function rateLimitHeader(decision: Decision): string {
  const retryAfter = retryAfterSeconds(decision);
  let value = '';
  for (const part of decision.limits) {
    if (value !== '') value += ', ';
    value += `"${part.name}";r=${Math.max(0, part.remaining)}`;
    const windowMs = effectiveWindowMs(part);
    if (windowMs === undefined) continue;
    const seconds = ceilSeconds(windowMs);
    value += `;t=${retryAfter === undefined ? seconds : Math.min(seconds, retryAfter)}`;
  }
  return value;
}

/** Which fields a response carries: `headers` parsed (see `HeaderStyle`); false sends none, `Retry-After` included. */
export type HeaderPlan = false | { readonly draft: DraftVersion | undefined; readonly legacy: boolean };

/**
 * The rate-limit fields of one response, in the chosen style: `policy` is the rule's
 * `RateLimit-Policy` (draft 11), `key` what the request was counted under (draft 8 sends its hash).
 */
export function decisionHeaders(plan: HeaderPlan, policy: string, decision: Decision, key: string): [string, string][] {
  if (plan === false) return [];
  const { draft, legacy } = plan;
  // Built as literals: an array grown by push costs a copy of its backing store.
  if (draft === 'draft-11' && !legacy)
    return [
      [FIELD.policy, policy],
      [FIELD.rateLimit, rateLimitHeader(decision)],
    ];
  const standard = draft === undefined ? [] : draftHeaders(draft, policy, decision, key);
  return legacy ? [...standard, ...legacyHeaders(decision)] : standard;
}

function draftHeaders(draft: DraftVersion, policy: string, decision: Decision, key: string): [string, string][] {
  switch (draft) {
    case 'draft-6':
      return draft6Headers(decision);
    case 'draft-7':
      return draft7Headers(decision);
    case 'draft-8':
      return draft8Headers(decision, key);
    default:
      return [
        [FIELD.policy, policy],
        [FIELD.rateLimit, rateLimitHeader(decision)],
      ];
  }
}

/** The name @nestjs/throttler gives no suffix: its fields are the unsuffixed `X-RateLimit-*` set. */
const UNSUFFIXED_NAME = 'default';

/**
 * `X-RateLimit-Limit/Remaining/Reset` (reset in epoch seconds, as GitHub and express-rate-limit
 * send it) of the limit named `default` when the rule has one, else of the reported limit; and
 * @nestjs/throttler's fields of every limit named otherwise (a name given in `limits`, or `name`),
 * suffixed with its name: `X-RateLimit-Limit-<name>`, `-Remaining-<name>`, `-Reset-<name>`
 * (seconds from now, as throttler counts them) and, on a denial by that limit, `Retry-After-<name>`;
 * no reset for a count that never resets.
 */
function legacyHeaders(decision: Decision): [string, string][] {
  const { limits } = decision;
  const main = limits.find((part) => part.name === UNSUFFIXED_NAME) ?? decision;
  const fields: [string, string][] = [
    [FIELD.limit, String(main.limit)],
    [FIELD.remaining, String(Math.max(0, main.remaining))],
  ];
  // None for a count that never resets.
  if (Number.isFinite(main.resetAfterMs)) fields.push([FIELD.reset, String(ceilSeconds(decision.decidedAtMs + main.resetAfterMs))]);
  for (const part of limits) {
    if (part.name === UNSUFFIXED_NAME) continue;
    fields.push(
      [`${FIELD.limit}-${part.name}`, String(part.limit)],
      [`${FIELD.remaining}-${part.name}`, String(Math.max(0, part.remaining))],
    );
    if (Number.isFinite(part.resetAfterMs)) fields.push([`${FIELD.reset}-${part.name}`, String(ceilSeconds(part.resetAfterMs))]);
    if (!part.allowed && Number.isFinite(part.retryAfterMs))
      fields.push([`${FIELD.retryAfter}-${part.name}`, String(ceilSeconds(part.retryAfterMs))]);
  }
  return fields;
}
