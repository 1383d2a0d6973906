import type { LimiterOptions } from '../limiter-types.js';
import type { LimitSpec } from '../spec.js';
import type { KeySelector } from './request.js';

/** The limiter options a rule, or the rule set's `defaults`, may set. */
export interface RuleOptions {
  shadow?: LimiterOptions['shadow'];
  timeout?: LimiterOptions['timeout'];
  /** `{ share }`: a memory fallback enforcing that fraction of the rule. */
  onStoreError?: 'open' | 'closed' | { share: number };
  denyCache?: LimiterOptions['denyCache'];
}

export interface RuleMatchDocument {
  method?: string | string[];
  path?: string;
}

export interface TierConditionDocument {
  key?: KeySelector;
  in: (string | number)[];
}

export interface TierDocument {
  name: string;
  when?: TierConditionDocument;
  key?: KeySelector;
  limit?: LimitSpec;
  limits?: LimitSpec[];
}

export interface RuleDocument extends RuleOptions {
  name: string;
  match?: RuleMatchDocument;
  key?: KeySelector;
  limit?: LimitSpec;
  limits?: LimitSpec[];
  tiers?: TierDocument[];
}

/** A rule set as written in a rule file or published to Redis. */
export interface RuleSetDocument {
  rules: RuleDocument[];
  prefix?: string;
  defaults?: RuleOptions;
}

// The fields of each part of the document, in the order errors list them; typecheck fails on one missing.
export const TOP_FIELDS = { rules: true, prefix: true, defaults: true } as const satisfies Record<keyof RuleSetDocument, true>;
export const OPTION_FIELDS = { shadow: true, timeout: true, onStoreError: true, denyCache: true } as const satisfies Record<
  keyof RuleOptions,
  true
>;
export const RULE_FIELDS = {
  name: true,
  match: true,
  key: true,
  limit: true,
  limits: true,
  tiers: true,
  ...OPTION_FIELDS,
} as const satisfies Record<keyof RuleDocument, true>;
export const TIER_FIELDS = { name: true, when: true, key: true, limit: true, limits: true } as const satisfies Record<
  keyof TierDocument,
  true
>;
export const MATCH_FIELDS = { method: true, path: true } as const satisfies Record<keyof RuleMatchDocument, true>;
export const CONDITION_FIELDS = { key: true, in: true } as const satisfies Record<keyof TierConditionDocument, true>;
