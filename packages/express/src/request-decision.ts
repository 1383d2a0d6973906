import { IncomingMessage } from 'node:http';
import { type Decision, type RequestRateLimit, requestRateLimit } from '@tollgate/core';

/** A decision recorded on a request, turned into what `req.rateLimit` shows only when someone reads it. */
class Recorded {
  private view: RequestRateLimit | undefined;

  constructor(
    private readonly decision: Decision,
    private readonly key: string,
  ) {}

  read(): RequestRateLimit {
    this.view ??= requestRateLimit(this.decision, this.key);
    return this.view;
  }
}

/** The property the accessor serves: the default `requestPropertyName`. */
const DEFAULT_NAME = 'rateLimit';
/** What `req.rateLimit` holds: a decision recorded here, or whatever else wrote it (express-rate-limit writes its own). */
const values = new WeakMap<object, unknown>();
/** Requests a Tollgate middleware recorded a decision on under another property name. */
const limited = new WeakSet<object>();

const accessor: PropertyDescriptor = {
  configurable: true,
  get(this: object): unknown {
    const value = values.get(this);
    return value instanceof Recorded ? value.read() : value;
  },
  set(this: object, value: unknown) {
    values.set(this, value);
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
  if (holder !== null && Object.getOwnPropertyDescriptor(holder, DEFAULT_NAME) === undefined) {
    Object.defineProperty(holder, DEFAULT_NAME, accessor);
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
  return !Object.hasOwn(req, DEFAULT_NAME);
}

function inheritsAccessor(prototype: object | null): boolean {
  for (let holder = prototype; holder !== null; holder = Object.getPrototypeOf(holder) as object | null) {
    const own = Object.getOwnPropertyDescriptor(holder, DEFAULT_NAME);
    if (own !== undefined) return own.get === accessor.get && own.set === accessor.set;
  }
  return false;
}

/**
 * Records the decision as `req[name]` (a `RequestRateLimit`); true when the response may already
 * carry the RateLimit fields of an earlier limiter: one that recorded a decision on this request
 * (every Tollgate middleware does), or wrote `req[name]` before (express-rate-limit does).
 */
export function recordDecision(req: object, decision: Decision, key: string, name: string = DEFAULT_NAME): boolean {
  const earlier = values.has(req) || limited.has(req);
  if (name === DEFAULT_NAME && servedByAccessor(req)) {
    values.set(req, new Recorded(decision, key));
    return earlier;
  }
  if (name !== DEFAULT_NAME) limited.add(req);
  const holder = req as Record<string, unknown>;
  const written = holder[name] !== undefined;
  holder[name] = requestRateLimit(decision, key);
  return earlier || written;
}
