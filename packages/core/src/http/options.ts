import { createHash } from 'node:crypto';
import { invalidOption } from '../errors.js';
import { LIMITER_FIELDS } from '../limiter-config.js';
import type { LimiterOptions } from '../limiter-types.js';
import type { FieldSet } from '../option-fields.js';
import { SPEC_FIELDS } from '../shorthand.js';
import type { RuleSpec } from '../spec.js';
import { MemoryStore } from '../stores/memory-store.js';
import type { BoundLimit, Store } from '../stores/store.js';
import type { HttpBehaviourOptions, HttpRateLimitOptions, HttpRuleSetOptions } from './types.js';

/** One entry per option of `HttpBehaviourOptions`: the compiler refuses this object when one is missing. */
export const BEHAVIOUR_FIELDS = {
  key: true,
  cost: true,
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
  checkProxy: true,
  skipFailedRequests: true,
  skipSuccessfulRequests: true,
  requestWasSuccessful: true,
} as const satisfies Record<keyof HttpBehaviourOptions, true>;

/**
 * Every field the options of an inline rule may hold: an HTTP behaviour, a limiter option,
 * `limits`, express-rate-limit's `windowMs` and `max`, or a field of some limit spec.
 */
export const INLINE_FIELDS: FieldSet = { ...BEHAVIOUR_FIELDS, ...LIMITER_FIELDS, ...SPEC_FIELDS, limits: true, windowMs: true, max: true };

/** The options a rule set takes; `key` is among them only to be refused first, with a reason of its own. */
export const RULE_SET_FIELDS = { ...BEHAVIOUR_FIELDS, rules: true, user: true } as const satisfies Record<keyof HttpRuleSetOptions, true>;

/**
 * Every field the options of an HTTP limiter may hold, of an inline rule or of a rule set: what an
 * adapter checks options against before it sorts them between limiters (a route's own, a default).
 */
export const HTTP_OPTION_FIELDS: FieldSet = { ...INLINE_FIELDS, ...RULE_SET_FIELDS };

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
/** The rule digests given a default prefix on each shared store (any store but a MemoryStore). */
const digestsOnStores = new WeakMap<Store, Set<string>>();

/**
 * Builds a rule's limiter under a storage prefix of its own, so identities of different rules
 * never share state: a digest of the rule's limits. Processes running the same code derive the
 * same prefix for the same rule, whatever the order they build their rules in. On a memory store
 * (this process's state alone) the n-th identical rule built gets `-<n>` after it (one whose
 * `build` threw does not count); on a shared store that order could differ between processes and
 * make two routes share a budget, so a second rule with the same limits is refused until one of
 * them is given a `prefix`.
 */
export function withDefaultPrefix<T>(limits: readonly BoundLimit[], store: Store | undefined, build: (prefix: string) => T): T {
  const digest = createHash('sha256')
    .update(JSON.stringify(limits.map((limit) => [limit.name, ...limit.luaArgs])))
    .digest('base64url')
    .slice(0, 12);
  if (store !== undefined && !(store instanceof MemoryStore)) return onSharedStore(digest, store, build);
  const seen = (rulesSeen.get(digest) ?? 0) + 1;
  const built = build(seen === 1 ? `tollgate:${digest}` : `tollgate:${digest}-${seen}`);
  rulesSeen.set(digest, seen);
  return built;
}

function onSharedStore<T>(digest: string, store: Store, build: (prefix: string) => T): T {
  const digests = digestsOnStores.get(store) ?? new Set<string>();
  if (digests.has(digest)) {
    throw invalidOption(
      'prefix',
      'is required: another rule with the same limits already uses the default prefix on this store, and without names of their own two processes building them in a different order would share one budget (give each rule its own prefix, e.g. prefix: "login")',
      undefined,
    );
  }
  const built = build(`tollgate:${digest}`);
  digests.add(digest);
  digestsOnStores.set(store, digests);
  return built;
}
