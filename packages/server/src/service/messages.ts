/**
 * The messages of `envoy.service.ratelimit.v3.RateLimitService` as `@grpc/proto-loader` hands
 * them over (field names as in the .proto files, enums as their names, 64-bit numbers as numbers).
 */

export type Code = 'UNKNOWN' | 'OK' | 'OVER_LIMIT';
export type UnitName = 'UNKNOWN' | 'SECOND' | 'MINUTE' | 'HOUR' | 'DAY' | 'WEEK' | 'MONTH' | 'YEAR';

export interface RateLimitEntry {
  key: string;
  value: string;
}

/** `RateLimitDescriptor.RateLimitOverride`: a limit the request brings, in place of the configured one. */
export interface RateLimitOverride {
  requests_per_unit?: number;
  unit?: UnitName;
}

export interface RateLimitDescriptor {
  entries?: RateLimitEntry[];
  limit?: RateLimitOverride | null;
  /** `google.protobuf.UInt64Value`: set (0 included) it is this descriptor's cost. */
  hits_addend?: { value?: number } | null;
}

export interface RateLimitRequest {
  domain?: string;
  descriptors?: RateLimitDescriptor[];
  /** The cost of every descriptor without a `hits_addend` of its own; 0 (unset) counts as 1. */
  hits_addend?: number;
}

export interface RateLimitValue {
  name?: string;
  requests_per_unit: number;
  unit: UnitName;
}

export interface Duration {
  seconds: number;
  nanos: number;
}

export interface DescriptorStatus {
  code: Code;
  current_limit?: RateLimitValue;
  limit_remaining: number;
  duration_until_reset?: Duration;
}

export interface HeaderValue {
  key: string;
  value: string;
}

export interface RateLimitResponse {
  overall_code: Code;
  statuses: DescriptorStatus[];
  response_headers_to_add: HeaderValue[];
}
