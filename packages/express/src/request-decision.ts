import { IncomingMessage } from 'node:http';
import type { Decision } from '@tollgate/core';

const decisions = new WeakMap<object, Decision | undefined>();

const accessor: PropertyDescriptor = {
  configurable: true,
  get(this: object): Decision | undefined {
    return decisions.get(this);
  },
  set(this: object, decision: Decision | undefined) {
    decisions.set(this, decision);
  },
};

/**
 * Makes `req.rateLimit` an accessor of every Node request, backed by a WeakMap, before the first
 * middleware runs. Express 5 gives each request its prototype anew, so each request has a map of
 * its own and a property added to it costs V8 a new map and a copy of its descriptors (~7k
 * instructions); a write that finds this setter adds nothing to the request. Reads and writes
 * (by any code, as before) go through the map; a request of another class gets an own property.
 */
export function defineRateLimitProperty(): void {
  if (Object.getOwnPropertyDescriptor(IncomingMessage.prototype, 'rateLimit') !== undefined) return;
  Object.defineProperty(IncomingMessage.prototype, 'rateLimit', accessor);
}

/** The last request prototype found to inherit `rateLimit` from this accessor (Express: the app's `request`). */
let servedPrototype: object | null = null;

/**
 * Whether `req.rateLimit` is this accessor's. Writing the map directly then spares the lookup of
 * the setter along the request's prototype chain, slow on an Express 5 request.
 */
function servedByAccessor(req: object): boolean {
  const prototype = Object.getPrototypeOf(req) as object | null;
  if (prototype !== servedPrototype && !inheritsAccessor(prototype)) return false;
  servedPrototype = prototype;
  return !Object.hasOwn(req, 'rateLimit');
}

function inheritsAccessor(prototype: object | null): boolean {
  for (let holder = prototype; holder !== null; holder = Object.getPrototypeOf(holder) as object | null) {
    const own = Object.getOwnPropertyDescriptor(holder, 'rateLimit');
    if (own !== undefined) return own.get === accessor.get && own.set === accessor.set;
  }
  return false;
}

/**
 * Sets `req.rateLimit`; true when the response may already carry the RateLimit fields of an
 * earlier limiter (one that wrote `req.rateLimit` before, as every Tollgate middleware and
 * express-rate-limit do), or when that cannot be told: the decision went elsewhere than this accessor.
 */
export function recordDecision(req: object & { rateLimit?: Decision }, decision: Decision): boolean {
  const earlier = decisions.has(req);
  if (servedByAccessor(req)) {
    decisions.set(req, decision);
    return earlier;
  }
  req.rateLimit = decision;
  return earlier || decisions.get(req) !== decision;
}
