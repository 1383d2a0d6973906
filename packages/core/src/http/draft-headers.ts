import { createHash } from 'node:crypto';
import type { Decision, LimitDecision } from '../decision.js';
import { ceilSeconds } from './seconds.js';

/**
 * The earlier drafts of draft-ietf-httpapi-ratelimit-headers, written byte for byte as
 * express-rate-limit 8 writes them (its `source/headers.ts`), for clients that read those:
 * draft 6 and 7 describe one limit (the decision's reported one), draft 8 one list member per limit.
 * A count that never resets (`window: 'forever'`) has no window and no reset: those parts are left out.
 */

/** Seconds until the limit is full again, as express-rate-limit counts them from its `resetTime`. */
function resetSeconds(part: Pick<LimitDecision, 'resetAfterMs'>): number {
  return Math.max(0, ceilSeconds(part.resetAfterMs));
}

function windowSeconds(part: Pick<LimitDecision, 'policy'>): number {
  return ceilSeconds(part.policy.windowMs);
}

/** `;w=<seconds>` / `, reset=<seconds>`...: `text` of a time that exists, nothing for a count that never resets. */
function ifFinite(ms: number, text: () => string): string {
  return Number.isFinite(ms) ? text() : '';
}

function reported(decision: Decision): LimitDecision {
  return decision.limits.find((part) => part.name === decision.limitName) ?? decision.limits[0]!;
}

/** Draft 6: `RateLimit-Policy: 5;w=60`, and `RateLimit-Limit`, `-Remaining`, `-Reset` as separate fields. */
export function draft6Headers(decision: Decision): [string, string][] {
  const part = reported(decision);
  const fields: [string, string][] = [
    ['ratelimit-policy', `${part.limit}${ifFinite(part.policy.windowMs, () => `;w=${windowSeconds(part)}`)}`],
    ['ratelimit-limit', String(part.limit)],
    ['ratelimit-remaining', String(Math.max(0, part.remaining))],
  ];
  if (Number.isFinite(part.resetAfterMs)) fields.push(['ratelimit-reset', String(resetSeconds(part))]);
  return fields;
}

/** Draft 7: `RateLimit-Policy: 5;w=60` and `RateLimit: limit=5, remaining=4, reset=60`. */
export function draft7Headers(decision: Decision): [string, string][] {
  const part = reported(decision);
  const reset = ifFinite(part.resetAfterMs, () => `, reset=${resetSeconds(part)}`);
  return [
    ['ratelimit-policy', `${part.limit}${ifFinite(part.policy.windowMs, () => `;w=${windowSeconds(part)}`)}`],
    ['ratelimit', `limit=${part.limit}, remaining=${Math.max(0, part.remaining)}${reset}`],
  ];
}

/**
 * express-rate-limit's partition key: the first 12 hex digits of the key's SHA-256, in base64
 * (16 bytes, as the draft's examples).
 */
export function partitionKey(key: string): string {
  return Buffer.from(createHash('sha256').update(key).digest('hex').slice(0, 12)).toString('base64');
}

/**
 * Draft 8: `RateLimit: "name"; r=4; t=60` and `RateLimit-Policy: "name"; q=5; w=60; pk=:<key hash>:`,
 * one member per limit (a concurrency limit, which has no window, has neither `t` nor `w`; a count
 * that never resets neither).
 */
export function draft8Headers(decision: Decision, key: string): [string, string][] {
  const pk = partitionKey(key);
  const rate: string[] = [];
  const policy: string[] = [];
  for (const part of decision.limits) {
    const timed = part.policy.unit !== 'concurrent-requests';
    const t = timed ? ifFinite(part.resetAfterMs, () => `; t=${resetSeconds(part)}`) : '';
    const w = timed ? ifFinite(part.policy.windowMs, () => `; w=${windowSeconds(part)}`) : '';
    rate.push(`"${part.name}"; r=${Math.max(0, part.remaining)}${t}`);
    policy.push(`"${part.name}"; q=${part.limit}${w}; pk=:${pk}:`);
  }
  return [
    ['ratelimit', rate.join(', ')],
    ['ratelimit-policy', policy.join(', ')],
  ];
}
