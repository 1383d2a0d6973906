import { IncomingMessage } from 'node:http';
import type { Decision } from '@tollgate/core';

const decisions = new WeakMap<object, Decision | undefined>();

/**
 * Makes `req.rateLimit` an accessor of every Node request, backed by a WeakMap, before the first
 * middleware runs. Express 5 gives each request its prototype anew, so each request has a map of
 * its own and a property added to it costs V8 a new map and a copy of its descriptors (~7k
 * instructions); a write that finds this setter adds nothing to the request. Reads and writes
 * (by any code, as before) go through the map; a request of another class gets an own property.
 */
export function defineRateLimitProperty(): void {
  if (Object.getOwnPropertyDescriptor(IncomingMessage.prototype, 'rateLimit') !== undefined) return;
  Object.defineProperty(IncomingMessage.prototype, 'rateLimit', {
    configurable: true,
    get(this: object): Decision | undefined {
      return decisions.get(this);
    },
    set(this: object, decision: Decision | undefined) {
      decisions.set(this, decision);
    },
  });
}

/**
 * Sets `req.rateLimit`; true when the response may already carry the RateLimit fields of an
 * earlier limiter (one that wrote `req.rateLimit` before, as every Tollgate middleware and
 * express-rate-limit do), or when that cannot be told: the decision went elsewhere than this accessor.
 */
export function recordDecision(req: object & { rateLimit?: Decision }, decision: Decision): boolean {
  const earlier = decisions.has(req);
  req.rateLimit = decision;
  return earlier || decisions.get(req) !== decision;
}
