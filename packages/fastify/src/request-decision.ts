import { type Decision, type RequestRateLimit, requestRateLimit } from '@tollgate/core';

/** A decision recorded on a request, turned into what `request.rateLimit` shows only when someone reads it. */
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
/** What `request.rateLimit` holds: a decision recorded here, or whatever else wrote it. */
const values = new WeakMap<object, unknown>();
/** Requests a Tollgate hook recorded a decision on under another property name. */
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
 * Fastify's root `Request` prototype: the last one before `Object.prototype` on the request's
 * chain (each encapsulated context's request class inherits it). Null for a plain object.
 */
function fastifyRequest(request: object): object | null {
  for (let holder = Object.getPrototypeOf(request) as object | null; holder !== null; ) {
    const parent = Object.getPrototypeOf(holder) as object | null;
    if (parent === Object.prototype) return holder;
    holder = parent;
  }
  return null;
}

/** The last request prototype found to inherit `rateLimit` from this accessor. */
let servedPrototype: object | null = null;

/**
 * Whether `request.rateLimit` is this accessor's, defining it on Fastify's `Request` first unless
 * something (a `decorateRequest('rateLimit')`) already defines it on the chain.
 */
function servedByAccessor(request: object): boolean {
  const prototype = Object.getPrototypeOf(request) as object | null;
  if (prototype !== servedPrototype) {
    const root = fastifyRequest(request);
    if (root !== null && !(DEFAULT_NAME in root)) Object.defineProperty(root, DEFAULT_NAME, accessor);
    if (!inheritsAccessor(prototype)) return false;
    servedPrototype = prototype;
  }
  return !Object.hasOwn(request, DEFAULT_NAME);
}

function inheritsAccessor(prototype: object | null): boolean {
  for (let holder = prototype; holder !== null; holder = Object.getPrototypeOf(holder) as object | null) {
    const own = Object.getOwnPropertyDescriptor(holder, DEFAULT_NAME);
    if (own !== undefined) return own.get === accessor.get && own.set === accessor.set;
  }
  return false;
}

/**
 * Records the decision as `request[name]` (a `RequestRateLimit`, built only when read); true when
 * the reply may already carry the RateLimit fields of an earlier limiter: one that recorded a
 * decision on this request (every Tollgate hook does), or wrote `request[name]` before.
 */
export function recordDecision(request: object, decision: Decision, key: string, name: string = DEFAULT_NAME): boolean {
  const earlier = values.has(request) || limited.has(request);
  if (name === DEFAULT_NAME && servedByAccessor(request)) {
    values.set(request, new Recorded(decision, key));
    return earlier;
  }
  if (name !== DEFAULT_NAME) limited.add(request);
  const holder = request as Record<string, unknown>;
  const written = holder[name] !== undefined;
  holder[name] = requestRateLimit(decision, key);
  return earlier || written;
}
