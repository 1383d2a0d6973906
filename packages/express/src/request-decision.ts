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
 * Express's `request` object: the prototype every request of that copy of Express inherits, just
 * above Node's `IncomingMessage.prototype` (an app's and a mounted app's `request` inherit it).
 * Express documents it as the place to extend every request. Null for a request of another kind.
 */
function expressRequest(req: object): object | null {
  for (let holder = Object.getPrototypeOf(req) as object | null; holder !== null; ) {
    const parent = Object.getPrototypeOf(holder) as object | null;
    if (parent === IncomingMessage.prototype) return holder;
    holder = parent;
  }
  return null;
}

/**
 * Makes `req.rateLimit` an accessor of Express's `request`, backed by a WeakMap, unless something
 * already defines `rateLimit` there. Express 5 gives each request its prototype anew, so each
 * request has a map of its own and a property added to it costs V8 a new map and a copy of its
 * descriptors (~7k instructions); a write that finds this setter adds nothing to the request.
 */
function defineOn(holder: object | null): void {
  if (holder !== null && Object.getOwnPropertyDescriptor(holder, 'rateLimit') === undefined) {
    Object.defineProperty(holder, 'rateLimit', accessor);
  }
}

/** The last request prototype found to inherit `rateLimit` from this accessor (Express: the app's `request`). */
let servedPrototype: object | null = null;

/**
 * Whether `req.rateLimit` is this accessor's. Writing the map directly then spares the lookup of
 * the setter along the request's prototype chain, slow on an Express 5 request.
 */
function servedByAccessor(req: object): boolean {
  const prototype = Object.getPrototypeOf(req) as object | null;
  if (prototype !== servedPrototype) {
    defineOn(expressRequest(req));
    if (!inheritsAccessor(prototype)) return false;
    servedPrototype = prototype;
  }
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
