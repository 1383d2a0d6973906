import type { Limiter } from '../limiter-types.js';
import { policyHeader } from './headers.js';

/** The `RateLimit-Policy` of each limiter seen: it never changes for a limiter's limits. */
const policies = new WeakMap<Limiter, string>();

/**
 * The `RateLimit-Policy` field of a limiter's limits, built once per limiter: a rule set's (new
 * limiters on reload), or the limiter of the values chosen for a request (`withLimits`), whose
 * policy follows those values.
 */
export function policyOf(limiter: Limiter): string {
  let policy = policies.get(limiter);
  if (policy === undefined) {
    policy = policyHeader(limiter.limits);
    policies.set(limiter, policy);
  }
  return policy;
}
