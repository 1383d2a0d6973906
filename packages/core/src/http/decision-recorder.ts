import type { Decision } from '../decision.js';
import type { HeldRequest } from './held-request.js';
import { requestRateLimit } from './request-rate-limit.js';
import type { RequestRateLimit } from './types.js';

/** A decision recorded on a request, turned into what `req.rateLimit` shows only when someone reads it. */
class Recorded {
  private view: RequestRateLimit | undefined;

  constructor(
    private readonly decision: Decision,
    private readonly key: string,
    private readonly held: HeldRequest | undefined,
  ) {}

  read(): RequestRateLimit {
    this.view ??= requestRateLimit(this.decision, this.key, this.held);
    return this.view;
  }
}

/** The property the accessor serves: the default `requestPropertyName`. */
const DEFAULT_NAME = 'rateLimit';

/**
 * Records the decision as `req[name]` (a `RequestRateLimit`); true when the response may already
 * carry the RateLimit fields of an earlier limiter: one that recorded a decision on this request
 * (every Tollgate middleware does), or wrote `req[name]` before (express-rate-limit does).
 */
export type RecordDecision = (req: object, decision: Decision, key: string, name?: string, held?: HeldRequest) => boolean;

/**
 * `recordDecision` for a framework whose requests share a prototype that `rootOf(req)` finds (null
 * for a request of another kind). Under the default name the record is an accessor on that
 * prototype, backed by a WeakMap, unless something already defines `rateLimit` there: a request
 * then gets no property of its own (which costs V8 a new map per request, ~7k instructions on an
 * Express 5 request), and the `RequestRateLimit` is built only when read.
 */
export function decisionRecorder(rootOf: (req: object) => object | null): RecordDecision {
  /** What `req.rateLimit` holds: a decision recorded here, or whatever else wrote it. */
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
  /** The last request prototype found to inherit `rateLimit` from this accessor. */
  let servedPrototype: object | null = null;

  const inheritsAccessor = (prototype: object | null): boolean => {
    for (let holder = prototype; holder !== null; holder = Object.getPrototypeOf(holder) as object | null) {
      const own = Object.getOwnPropertyDescriptor(holder, DEFAULT_NAME);
      if (own !== undefined) return own.get === accessor.get && own.set === accessor.set;
    }
    return false;
  };
  /** Whether `req.rateLimit` is this accessor's: writing the map directly then spares the setter's lookup along the chain. */
  const servedByAccessor = (req: object): boolean => {
    const prototype = Object.getPrototypeOf(req) as object | null;
    if (prototype !== servedPrototype) {
      const root = rootOf(req);
      if (root !== null && Object.getOwnPropertyDescriptor(root, DEFAULT_NAME) === undefined) {
        Object.defineProperty(root, DEFAULT_NAME, accessor);
      }
      if (!inheritsAccessor(prototype)) return false;
      servedPrototype = prototype;
    }
    return !Object.hasOwn(req, DEFAULT_NAME);
  };

  return (req, decision, key, name = DEFAULT_NAME, held = undefined) => {
    const earlier = values.has(req) || limited.has(req);
    if (name === DEFAULT_NAME && servedByAccessor(req)) {
      values.set(req, new Recorded(decision, key, held));
      return earlier;
    }
    if (name !== DEFAULT_NAME) limited.add(req);
    const holder = req as Record<string, unknown>;
    const written = holder[name] !== undefined;
    holder[name] = requestRateLimit(decision, key, held);
    return earlier || written;
  };
}
