import type { AlgorithmName, LimiterOptions, LimitSpec } from '@tollgate/core';

/** The limiter options a descriptor, or the file's `defaults`, may set (Tollgate's own fields). */
export interface DescriptorOptions {
  /** Milliseconds a store call may take before the failure mode answers. Default 100. */
  timeout?: LimiterOptions['timeout'];
  /** What answers when the store fails: `open` (default), `closed`, or `{ share }` of the limit on a memory fallback. */
  onStoreError?: 'open' | 'closed' | { share: number };
  denyCache?: LimiterOptions['denyCache'];
}

/**
 * envoyproxy/ratelimit's `rate_limit` block, read as it is (`unit`, `requests_per_unit`,
 * `unlimited`, `name`, `replaces`), plus Tollgate's: `algorithm` and `burst` for the same
 * `requests_per_unit` per `unit`, or `limit` / `limits` (any Tollgate limit spec, several limits
 * checked all or nothing) in place of `unit` and `requests_per_unit`.
 */
export interface RateLimitDocument {
  name?: string;
  replaces?: { name: string }[];
  unit?: string;
  requests_per_unit?: number;
  unlimited?: boolean;
  /** Default `fixed-window`, as envoyproxy/ratelimit counts. */
  algorithm?: AlgorithmName;
  /** For `gcra`, `token-bucket` and `leaky-bucket`: how many may pass at once. */
  burst?: number;
  limit?: LimitSpec;
  limits?: LimitSpec[];
}

export interface DescriptorDocument extends DescriptorOptions {
  key: string;
  /** Absent: any value; `*` in it matches any run of characters. */
  value?: string;
  rate_limit?: RateLimitDocument;
  descriptors?: DescriptorDocument[];
  /** Decide and report, but answer OK. */
  shadow_mode?: boolean;
  /** Over the limit, report it, but fail the request only when every quota-mode descriptor of it is over. */
  quota_mode?: boolean;
  /** The descriptor metric names each value the request sent. */
  detailed_metric?: boolean;
  /** The descriptor metric names the value the request sent where the config gives none. */
  value_to_metric?: boolean;
  /** Every value a wildcard matches counts against one shared limit. */
  share_threshold?: boolean;
  /** Read and kept, as envoyproxy/ratelimit does; not sent back. */
  metadata?: Record<string, unknown>;
}

/** One domain, as an envoyproxy/ratelimit config file holds it. */
export interface DomainDocument {
  domain: string;
  descriptors?: DescriptorDocument[];
  /** Tollgate: options every descriptor of the domain starts from. */
  defaults?: DescriptorOptions;
}

// The fields of each part, in the order errors list them; typecheck fails on one missing.
export const OPTION_FIELDS = { timeout: true, onStoreError: true, denyCache: true } as const satisfies Record<
  keyof DescriptorOptions,
  true
>;
export const DOMAIN_FIELDS = { domain: true, descriptors: true, defaults: true } as const satisfies Record<keyof DomainDocument, true>;
export const DESCRIPTOR_FIELDS = {
  key: true,
  value: true,
  rate_limit: true,
  descriptors: true,
  shadow_mode: true,
  quota_mode: true,
  detailed_metric: true,
  value_to_metric: true,
  share_threshold: true,
  metadata: true,
  ...OPTION_FIELDS,
} as const satisfies Record<keyof DescriptorDocument, true>;
export const RATE_LIMIT_FIELDS = {
  name: true,
  replaces: true,
  unit: true,
  requests_per_unit: true,
  unlimited: true,
  algorithm: true,
  burst: true,
  limit: true,
  limits: true,
} as const satisfies Record<keyof RateLimitDocument, true>;
export const REPLACES_FIELDS = { name: true } as const satisfies Record<keyof NonNullable<RateLimitDocument['replaces']>[number], true>;
