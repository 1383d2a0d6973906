import { createHash } from 'node:crypto';
import { LIMITER_FIELDS } from '../limiter-config.js';
import type { LimiterOptions } from '../limiter-types.js';
import type { FieldSet } from '../option-fields.js';
import { SPEC_FIELDS } from '../shorthand.js';
import type { RuleSpec } from '../spec.js';
import type { BoundLimit } from '../stores/store.js';
import type { HttpBehaviourOptions, HttpRateLimitOptions } from './types.js';

/** One entry per option of `HttpBehaviourOptions`: the compiler refuses this object when one is missing. */
export const BEHAVIOUR_FIELDS = {
  key: true,
  skip: true,
  allowList: true,
  ipv6Subnet: true,
  headers: true,
  requestPropertyName: true,
  responseType: true,
  message: true,
  handler: true,
  statusCode: true,
  storeErrorStatusCode: true,
  skipFailedRequests: true,
  skipSuccessfulRequests: true,
  requestWasSuccessful: true,
} as const satisfies Record<keyof HttpBehaviourOptions, true>;

/**
 * Every field the options of an inline rule may hold: an HTTP behaviour, a limiter option,
 * `limits`, express-rate-limit's `windowMs` and `max`, or a field of some limit spec.
 */
export const INLINE_FIELDS: FieldSet = { ...BEHAVIOUR_FIELDS, ...LIMITER_FIELDS, ...SPEC_FIELDS, limits: true, windowMs: true, max: true };

/** The options of an inline rule, sorted by who takes them. */
export interface InlineOptions {
  behaviour: HttpBehaviourOptions;
  limiter: LimiterOptions;
  /** Everything else: the rule, which `bindRule` checks. */
  rule: RuleSpec;
}

/** Sorts the options of an inline rule in one pass: the HTTP behaviour, the limiter's options, the rule. */
export function splitInlineOptions(options: HttpRateLimitOptions): InlineOptions {
  const behaviour: Record<string, unknown> = {};
  const limiter: Record<string, unknown> = {};
  const rule: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(options)) {
    if (Object.hasOwn(BEHAVIOUR_FIELDS, field)) behaviour[field] = value;
    else if (Object.hasOwn(LIMITER_FIELDS, field)) limiter[field] = value;
    else rule[field] = value;
  }
  return { behaviour, limiter, rule: rule as RuleSpec };
}

const rulesSeen = new Map<string, number>();

/**
 * Builds a rule's limiter under a storage prefix of its own, so identities of different rules
 * never share state: a digest of the rule's limits, plus `-<n>` for the n-th identical rule built
 * in this process (one whose `build` threw does not count). Processes running the same code
 * derive the same prefixes; give `prefix` explicitly to share a rule's state across different code.
 */
export function withDefaultPrefix<T>(limits: readonly BoundLimit[], build: (prefix: string) => T): T {
  const digest = createHash('sha256')
    .update(JSON.stringify(limits.map((limit) => [limit.name, ...limit.luaArgs])))
    .digest('base64url')
    .slice(0, 12);
  const seen = (rulesSeen.get(digest) ?? 0) + 1;
  const built = build(seen === 1 ? `tollgate:${digest}` : `tollgate:${digest}-${seen}`);
  rulesSeen.set(digest, seen);
  return built;
}
