import { expect } from 'vitest';

/** One misspelt option: `[what, options, field, closest]` — the field as the error names it, and the name it most likely meant. */
export type OptionTypo = readonly [string, Record<string, unknown>, string, string];

/** An adapter's `rateLimit` options, each with a misspelt field; `ruleSet` is a rule set from core's `createRuleSet`. */
export function rateLimitTypos(ruleSet: unknown): OptionTypo[] {
  return [
    ['a shorthand', { perminute: 10 }, 'spec.perminute', 'perMinute'],
    ['a field of the rule', { qps: 10, brust: 5 }, 'spec.brust', 'burst'],
    ["express-rate-limit's rule", { windowMS: 60_000, limit: 5 }, 'spec.windowMS', 'windowMs'],
    ['a behaviour', { qps: 10, skipFailedRequest: true }, 'spec.skipFailedRequest', 'skipFailedRequests'],
    ['a limiter option', { qps: 10, breaker: { coolDown: 10 } }, 'breaker.coolDown', 'coolDownMs'],
    ['a rule-set option', { rules: ruleSet, hedaers: false }, 'hedaers', 'headers'],
  ];
}

/** An adapter's `adaptiveConcurrency` options, each with a misspelt field. */
export const ADAPTIVE_TYPOS: readonly OptionTypo[] = [
  ['a middleware option', { statuscode: 429 }, 'statuscode', 'statusCode'],
  ['a limiter option', { limt: 10 }, 'limt', 'limit'],
  ['the queue', { queue: { maxWait: 50 } }, 'queue.maxWait', 'maxWaitMs'],
  ['the event-loop delay', { eventLoopDelay: { maxMs: 50, percentil: 90 } }, 'eventLoopDelay.percentil', 'percentile'],
];

/** Expects `error` to be Tollgate's refusal of a misspelt `field`, naming it and the option it most likely meant. */
export function expectTypoRefused(error: unknown, field: string, closest: string): void {
  expect(error).toMatchObject({ code: expect.stringMatching(/^ERR_TOLLGATE_INVALID_/), field });
  expect((error as Error).message).toContain(`${field} is not an option here: did you mean ${closest}?`);
}

/** What `call` throws or rejects with; undefined when it does neither. */
export async function failureOf(call: () => unknown): Promise<unknown> {
  try {
    await call();
  } catch (error) {
    return error;
  }
  return undefined;
}
