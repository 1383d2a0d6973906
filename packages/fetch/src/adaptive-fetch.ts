import {
  type AdaptiveLimiter,
  type AdaptiveLimitOption,
  type AdaptiveQueueOptions,
  createAdaptiveLimiter,
  invalidOption,
  type RequestOutcome,
  refuseUnknownFields,
  TollgateError,
} from '@tollgate/core';

export interface AdaptiveFetchOptions {
  /** How each key's limit moves. Default AIMD: from 10, between 1 and 200, backing off ×0.9 on a loss and on a call slower than 5 s. */
  limit?: AdaptiveLimitOption;
  /** How long a call waits for a slot of its key. Default `{ maxWaitMs: 30_000, maxSize: 1000, order: 'fifo' }`. */
  queue?: AdaptiveQueueOptions;
  /** The upstream a call is limited by. Default: the URL's host (`api.example.com:8443`). */
  key?: (request: Request) => string;
  /** How an answer counts. Default: 429, 503 and 504 are losses (the upstream is overloaded), the rest successes. */
  outcome?: (response: Response) => RequestOutcome;
  /** The fetch that sends the calls. Default `globalThis.fetch`. */
  fetch?: typeof fetch;
  /** Millisecond clock the round trips are measured with. Default `performance.now`. */
  clock?: () => number;
}

const ADAPTIVE_FETCH_FIELDS = {
  limit: true,
  queue: true,
  key: true,
  outcome: true,
  fetch: true,
  clock: true,
} as const satisfies Record<keyof AdaptiveFetchOptions, true>;

export type AdaptiveFetch = ((input: string | URL | Request, init?: RequestInit) => Promise<Response>) & {
  /** The limiter of `key` (created on first use): its `snapshot()`, its events. */
  limiterOf(key: string): AdaptiveLimiter;
};

const DEFAULT_LIMIT: AdaptiveLimitOption = { algorithm: 'aimd', initialLimit: 10, minLimit: 1, maxLimit: 200, timeoutMs: 5000 };
const DEFAULT_QUEUE: AdaptiveQueueOptions = { maxWaitMs: 30_000, maxSize: 1000, order: 'fifo' };
const OVERLOADED = new Set([429, 503, 504]);

export function defaultFetchOutcome(response: Response): RequestOutcome {
  return OVERLOADED.has(response.status) ? 'dropped' : 'success';
}

/**
 * A `fetch` that finds how many calls at once each upstream takes (AIMD by default, after
 * Netflix concurrency-limits): a call holds a slot of its key until the answer's headers arrive;
 * a 429, 503 or 504, a network failure or a slow answer backs the limit off, successes raise it.
 * A call finding no slot waits in the key's queue; past `queue.maxWaitMs` it rejects with
 * `ERR_TOLLGATE_WAIT_TIMEOUT` without being sent. Per process; pair it with `createThrottledFetch`
 * for a rate shared through Redis.
 */
export function createAdaptiveFetch(options: AdaptiveFetchOptions = {}): AdaptiveFetch {
  if (typeof options !== 'object' || options === null) throw invalidOption('options', 'must be an object', options);
  refuseUnknownFields(options, ADAPTIVE_FETCH_FIELDS);
  const { key = (request: Request) => new URL(request.url).host, outcome = defaultFetchOutcome, fetch: send = globalThis.fetch } = options;
  for (const [field, value] of [
    ['key', key],
    ['outcome', outcome],
    ['fetch', send],
  ] as const) {
    if (typeof value !== 'function') throw invalidOption(field, 'must be a function', value);
  }
  const limiterOptions = {
    limit: options.limit ?? DEFAULT_LIMIT,
    queue: options.queue ?? DEFAULT_QUEUE,
    ...(options.clock ? { clock: options.clock } : {}),
  };
  const limiters = new Map<string, AdaptiveLimiter>();
  const limiterOf = (name: string): AdaptiveLimiter => {
    let limiter = limiters.get(name);
    if (limiter === undefined) {
      limiter = createAdaptiveLimiter(limiterOptions);
      limiters.set(name, limiter);
    }
    return limiter;
  };
  // Checked now, so a bad option throws here rather than at the first call.
  createAdaptiveLimiter(limiterOptions).close();
  const adaptiveFetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const request = new Request(input, init);
    const name = key(request);
    const slot = await limiterOf(name).acquire();
    if (!slot.admitted) {
      throw new TollgateError(
        'ERR_TOLLGATE_WAIT_TIMEOUT',
        `no slot for ${name} within queue.maxWaitMs (${slot.reason})`,
        'queue.maxWaitMs',
      );
    }
    let response: Response;
    try {
      response = await send(request);
    } catch (error) {
      // A call the caller aborted says nothing about the upstream; a network failure is a loss.
      if (request.signal.aborted) slot.ignore();
      else slot.dropped();
      throw error;
    }
    const counted = outcome(response);
    if (counted === 'dropped') slot.dropped();
    else if (counted === 'ignore') slot.ignore();
    else slot.success();
    return response;
  };
  return Object.assign(adaptiveFetch, { limiterOf });
}
