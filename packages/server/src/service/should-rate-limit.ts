import type { CompiledDomain } from '../config/domain.js';
import { type DescriptorEntry, matchDescriptor } from '../config/match.js';
import type { CompiledLimit } from '../config/rate-limit.js';
import type { RateLimitConfig } from '../config/rate-limit-config.js';
import { parseUnit } from '../config/units.js';
import type { RateLimitDescriptor, RateLimitRequest, RateLimitResponse } from './messages.js';
import type { OverrideLimit, OverrideLimits } from './overrides.js';
import { RequestError } from './request-error.js';
import { type DescriptorOutcome, responseOf } from './response.js';

/** Most descriptors in one request, and entries in one descriptor: a client cannot make one call cost without bound. */
export const MAX_DESCRIPTORS = 64;
export const MAX_ENTRIES = 32;

export interface RateLimitServiceOptions {
  /** The config in force: read on every call, so a reload applies to the next one. */
  config: () => RateLimitConfig;
  overrides: OverrideLimits;
  /** Add the RateLimit-Policy, RateLimit and Retry-After fields to `response_headers_to_add`. */
  headers: boolean;
  /** Global shadow mode: the overall code is always OK. */
  shadow: boolean;
  /** Told the outcome of every descriptor that fell under a limit (the descriptor metrics). */
  onDescriptor?: ((domain: string, metricKey: string, outcome: DescriptorOutcome) => void) | undefined;
}

export interface RateLimitService {
  /** `ShouldRateLimit`: rejects with a `RequestError` for a request the protocol does not allow. */
  shouldRateLimit(request: RateLimitRequest): Promise<RateLimitResponse>;
}

/** What one descriptor is checked against, before the store is asked. */
type Plan =
  | { kind: 'none' }
  | { kind: 'unlimited'; limit: CompiledLimit }
  | { kind: 'blocked'; limit: CompiledLimit | OverrideLimit; metricKey: string | undefined }
  | { kind: 'check'; limit: CompiledLimit | OverrideLimit; identity: string; cost: number; metricKey: string | undefined };

/**
 * Envoy's rate limit service on the config in force: every descriptor is matched to its limit
 * and counted with its cost on its own (one denied descriptor leaves the others counted, as in
 * envoyproxy/ratelimit); the response reports each, and is OVER_LIMIT when one that is not in
 * shadow or quota mode is over, or every quota-mode one is.
 */
export function createRateLimitService(options: RateLimitServiceOptions): RateLimitService {
  return {
    async shouldRateLimit(request) {
      const { domain, descriptors } = checkRequest(request);
      const compiled = options.config().domains.get(domain);
      const plans = descriptors.map((descriptor) =>
        compiled === undefined ? NONE : plan(descriptor, compiled, request.hits_addend, options.overrides),
      );
      dropReplaced(plans);
      const outcomes = await Promise.all(plans.map(decide));
      if (options.onDescriptor !== undefined) report(plans, outcomes, domain, options.onDescriptor);
      return responseOf(outcomes, options);
    },
  };
}

const NONE: Plan = { kind: 'none' };

function plan(descriptor: RateLimitDescriptor, domain: CompiledDomain, requestCost: number | undefined, overrides: OverrideLimits): Plan {
  const entries = descriptor.entries as DescriptorEntry[];
  const cost = costOf(descriptor, requestCost);
  if (descriptor.limit !== undefined && descriptor.limit !== null) {
    const unit = parseUnit(descriptor.limit.unit);
    if (unit === undefined) throw new RequestError(`descriptors[].limit.unit must name a unit of time (got ${descriptor.limit.unit})`);
    const limit = overrides.get(descriptor.limit.requests_per_unit ?? 0, unit);
    const identity = JSON.stringify([domain.name, ...entries.flatMap(({ key, value }) => [key, value])]);
    if (limit.configured.requests_per_unit === 0) return { kind: 'blocked', limit, metricKey: undefined };
    return { kind: 'check', limit, identity, cost, metricKey: undefined };
  }
  const match = matchDescriptor(domain, entries);
  if (match === undefined) return NONE;
  const { limit, identity, metricKey } = match;
  if (limit.kind === 'unlimited') return { kind: 'unlimited', limit };
  if (limit.kind === 'blocked') return { kind: 'blocked', limit, metricKey };
  return { kind: 'check', limit, identity, cost, metricKey };
}

/** The descriptor's `hits_addend` when set (0: check without counting), else the request's, at least 1. */
function costOf(descriptor: RateLimitDescriptor, requestCost: number | undefined): number {
  const own = descriptor.hits_addend;
  const cost = own !== undefined && own !== null ? (own.value ?? 0) : Math.max(1, requestCost ?? 0);
  return Math.min(cost, Number.MAX_SAFE_INTEGER);
}

/** A limit named in another matched limit's `replaces` is not checked (its descriptor reads as unmatched). */
function dropReplaced(plans: Plan[]): void {
  const replaced = new Set<string>();
  for (const plan of plans) for (const name of replacesOf(plan)) replaced.add(name);
  if (replaced.size === 0) return;
  plans.forEach((plan, i) => {
    const name = configuredOf(plan)?.name;
    if (name !== undefined && replaced.has(name)) plans[i] = NONE;
  });
}

function replacesOf(plan: Plan): readonly string[] {
  return configuredOf(plan)?.replaces ?? [];
}

/** The configured limit a plan checks; undefined for none and for a request's own override. */
function configuredOf(plan: Plan): CompiledLimit | undefined {
  return plan.kind !== 'none' && 'fullKey' in plan.limit ? plan.limit : undefined;
}

async function decide(plan: Plan): Promise<DescriptorOutcome> {
  if (plan.kind !== 'check') return plan.kind === 'blocked' ? { kind: 'blocked', limit: plan.limit } : { kind: plan.kind };
  const { limiter } = plan.limit;
  if (plan.cost > 0) return { kind: 'decided', limit: plan.limit, decision: await limiter!.consume(plan.identity, { cost: plan.cost }) };
  // hits_addend 0 checks without counting: whether one more would pass, and what is left now.
  return { kind: 'decided', limit: plan.limit, decision: await limiter!.peek(plan.identity) };
}

function report(
  plans: Plan[],
  outcomes: DescriptorOutcome[],
  domain: string,
  onDescriptor: NonNullable<RateLimitServiceOptions['onDescriptor']>,
): void {
  plans.forEach((plan, i) => {
    if ((plan.kind === 'check' || plan.kind === 'blocked') && plan.metricKey !== undefined)
      onDescriptor(domain, plan.metricKey, outcomes[i]!);
  });
}

/** The request as the protocol allows it: a domain, 1 to 64 descriptors of 1 to 32 entries with a key each. */
function checkRequest(request: RateLimitRequest): { domain: string; descriptors: RateLimitDescriptor[] } {
  const { domain, descriptors } = request;
  if (typeof domain !== 'string' || domain === '') throw new RequestError('rate limit domain must not be empty');
  if (!Array.isArray(descriptors) || descriptors.length === 0) throw new RequestError('rate limit descriptor list must not be empty');
  if (descriptors.length > MAX_DESCRIPTORS)
    throw new RequestError(`at most ${MAX_DESCRIPTORS} descriptors are taken (got ${descriptors.length})`);
  for (const descriptor of descriptors) {
    const entries = descriptor.entries;
    if (!Array.isArray(entries) || entries.length === 0 || entries.length > MAX_ENTRIES) {
      throw new RequestError(`every descriptor must have 1 to ${MAX_ENTRIES} entries`);
    }
    for (const entry of entries) {
      if (typeof entry.key !== 'string' || entry.key === '') throw new RequestError('every descriptor entry must have a key');
      // Unset fields are left out of a message: an empty value arrives as none.
      if (typeof entry.value !== 'string') entry.value = '';
    }
  }
  return { domain, descriptors };
}
