import {
  type Clock,
  type Cost,
  type Limiter,
  MemoryStore,
  parseDuration,
  refuseUnknownFields,
  type Store,
  TollgateError,
} from '@tollgate/core';
import { type CallCost, totalTokens } from './held-call.js';
import { BUDGET_UNITS, type BudgetUnit, type UpstreamBudget } from './token-budgets.js';
import type { BudgetHeadroom, IgnoredHeader, UpstreamPolicy } from './upstream-headers.js';
import type { TokenUsage } from './usage.js';

export interface RetryPolicy {
  /** Retries after the first attempt. Default 2. */
  limit?: number;
  /** Methods safe to send again. Default GET, HEAD, OPTIONS, TRACE, PUT, DELETE (RFC 9110 §9.2.2). */
  methods?: readonly string[];
  /** Wait before a retry the upstream gave no time for, doubled each retry, in ms. Default 1000. */
  backoff?: number;
}

export interface ThrottledFetchEvents {
  /** The upstream asked every caller of `key` to hold off `pauseMs` (from `header`); called once the pause is shared, so a call started after it waits. */
  pause?: (event: { key: string; pauseMs: number; header: string; status: number }) => void;
  /** A 429/503 answer to an idempotent request; it goes out again after `waitMs` at the earliest. */
  retry?: (event: { key: string; attempt: number; status: number; waitMs: number }) => void;
  /** A header that was malformed, negative or asked for too long a pause: not followed. */
  ignoredHeader?: (event: IgnoredHeader & { key: string }) => void;
  /** The upstream's `RateLimit-Policy`, as it was read. */
  policy?: (event: { key: string; policies: UpstreamPolicy[] }) => void;
  /** The upstream's per-unit budgets (OpenAI- or Anthropic-style headers), as one answer gave them. */
  budget?: (event: { key: string; budgets: UpstreamBudget[] }) => void;
}

export interface ThrottledFetchOptions {
  /** The limiter every call waits for (`limiter.wait`), shared through its store. */
  limiter: Limiter;
  /** Where pauses are shared: give the limiter's store (a RedisStore) so every process pauses. Default: a MemoryStore (this process only). */
  store?: Store;
  /** Start of the pause keys. Default `tollgate:fetch-pause`. */
  prefix?: string;
  /** The identity a call is limited and paused by. Default: the URL's host (`api.example.com:8443`). */
  key?: (request: Request) => string;
  /** The longest a call may wait for its turn, pauses included; past it the call rejects with `ERR_TOLLGATE_WAIT_TIMEOUT`. Default Infinity. */
  maxWait?: number | string;
  /** The longest pause an upstream header is followed for; longer ones are ignored (event `ignoredHeader`), and a 429/503 with such a `Retry-After` goes back to the caller unretried. Default 5 minutes. */
  maxPause?: number | string;
  /** How 429 and 503 answers to idempotent requests are retried; `false`: never. */
  retry?: RetryPolicy | false;
  /**
   * Per unit (`requests`, `tokens`, `input-tokens`, `output-tokens`), the budget the upstream must
   * still have left for calls to go on: an answer saying no more than this remains pauses the key until
   * the budget resets. Set it to what the calls in flight at once may spend, so none is refused. Default 0 for every unit.
   */
  headroom?: BudgetHeadroom;
  /**
   * What a call holds on `limiter` before it goes out, instead of waiting for one unit
   * (`limiter.wait`): e.g. `{ requests: 1, tokens: promptTokens + max_tokens }`. The call waits
   * while the estimate does not fit. The answer settles it: an error answer gives it all back,
   * else the tokens its `usage` reports once its body was read (see `actualCost`).
   */
  cost?: (request: Request) => Cost | Promise<Cost>;
  /** With `cost`: what an answer's usage costs. Default `({ total }) => ({ tokens: total })`. */
  actualCost?: (usage: TokenUsage) => Cost;
  /** The fetch that sends the calls. Default `globalThis.fetch`. */
  fetch?: typeof fetch;
  /** Times the local pause cache and backoff; tests pass a virtual clock. Default Date.now (pauses on Redis use its clock). */
  clock?: Clock;
  events?: ThrottledFetchEvents;
}

export interface ResolvedOptions {
  limiter: Limiter;
  store: Store;
  prefix: string;
  key: (request: Request) => string;
  maxWaitMs: number;
  maxPauseMs: number;
  retryLimit: number;
  retryMethods: ReadonlySet<string>;
  backoffMs: number;
  headroom: BudgetHeadroom;
  /** With the `cost` option: what a call holds and what settles it. */
  callCost: CallCost | undefined;
  fetch: typeof fetch;
  clock: Clock | undefined;
  events: ThrottledFetchEvents;
}

/** One entry per option of each options type: the compiler refuses an object missing one. */
const OPTION_FIELDS = {
  limiter: true,
  store: true,
  prefix: true,
  key: true,
  maxWait: true,
  maxPause: true,
  retry: true,
  headroom: true,
  cost: true,
  actualCost: true,
  fetch: true,
  clock: true,
  events: true,
} as const satisfies Record<keyof ThrottledFetchOptions, true>;
const RETRY_FIELDS = { limit: true, methods: true, backoff: true } as const satisfies Record<keyof RetryPolicy, true>;
const EVENT_FIELDS = { pause: true, retry: true, ignoredHeader: true, policy: true, budget: true } as const satisfies Record<
  keyof ThrottledFetchEvents,
  true
>;
const HEADROOM_FIELDS = Object.fromEntries(BUDGET_UNITS.map((unit) => [unit, true])) as Record<BudgetUnit, true>;

const IDEMPOTENT = ['GET', 'HEAD', 'OPTIONS', 'TRACE', 'PUT', 'DELETE'];

export function resolveOptions(options: ThrottledFetchOptions): ResolvedOptions {
  if (typeof options !== 'object' || options === null) throw invalid('options', 'must be an object', options);
  refuseUnknownFields(options, OPTION_FIELDS);
  const { limiter, retry = {}, events = {} } = options;
  if (typeof events !== 'object' || events === null) throw invalid('events', 'must be an object of listeners', events);
  refuseUnknownFields(events, EVENT_FIELDS, 'events.');
  if (typeof limiter?.wait !== 'function') throw invalid('limiter', 'must be a limiter from createLimiter', limiter);
  if (options.store !== undefined && typeof options.store.execute !== 'function') throw invalid('store', 'must be a Store', options.store);
  if (options.key !== undefined && typeof options.key !== 'function')
    throw invalid('key', 'must be a function of the Request', options.key);
  const fetchImpl = options.fetch ?? globalThis.fetch;
  if (typeof fetchImpl !== 'function') throw invalid('fetch', 'must be a fetch function', fetchImpl);
  if (retry !== false && (typeof retry !== 'object' || retry === null)) throw invalid('retry', 'must be an object or false', retry);
  if (retry !== false) refuseUnknownFields(retry, RETRY_FIELDS, 'retry.');
  const retryLimit = retry === false ? 0 : (retry.limit ?? 2);
  if (!Number.isSafeInteger(retryLimit) || retryLimit < 0 || retryLimit > 10)
    throw invalid('retry.limit', 'must be a whole number from 0 to 10', retryLimit);
  const methods = (retry === false ? undefined : retry.methods) ?? IDEMPOTENT;
  if (!Array.isArray(methods) || methods.some((m) => typeof m !== 'string'))
    throw invalid('retry.methods', 'must be an array of method names', methods);
  return {
    limiter,
    store: options.store ?? new MemoryStore(options.clock ? { clock: options.clock } : {}),
    prefix: options.prefix ?? 'tollgate:fetch-pause',
    key: options.key ?? ((request) => new URL(request.url).host),
    maxWaitMs: options.maxWait === undefined ? Number.POSITIVE_INFINITY : duration(options.maxWait, 'maxWait'),
    maxPauseMs: duration(options.maxPause ?? '5m', 'maxPause'),
    retryLimit,
    retryMethods: new Set(methods.map((m) => m.toUpperCase())),
    backoffMs: duration((retry === false ? undefined : retry.backoff) ?? 1000, 'retry.backoff'),
    headroom: resolveHeadroom(options.headroom ?? {}),
    callCost: resolveCallCost(options.cost, options.actualCost),
    fetch: fetchImpl,
    clock: options.clock,
    events,
  };
}

function resolveCallCost(estimate: ThrottledFetchOptions['cost'], actual: ThrottledFetchOptions['actualCost']): CallCost | undefined {
  if (estimate !== undefined && typeof estimate !== 'function') throw invalid('cost', 'must be a function of the Request', estimate);
  if (actual !== undefined && typeof actual !== 'function') throw invalid('actualCost', 'must be a function of the usage', actual);
  if (estimate === undefined && actual !== undefined) throw invalid('actualCost', 'needs the cost option', actual);
  return estimate === undefined ? undefined : { estimate, actual: actual ?? totalTokens };
}

function resolveHeadroom(headroom: BudgetHeadroom): BudgetHeadroom {
  if (typeof headroom !== 'object' || headroom === null) throw invalid('headroom', 'must be an object of units', headroom);
  refuseUnknownFields(headroom, HEADROOM_FIELDS, 'headroom.');
  for (const [unit, count] of Object.entries(headroom)) {
    if (!Number.isSafeInteger(count) || count < 0) throw invalid(`headroom.${unit}`, 'must be a whole number of 0 or more', count);
  }
  return headroom;
}

function duration(value: unknown, field: string): number {
  try {
    return parseDuration(value, field);
  } catch (error) {
    throw new TollgateError('ERR_TOLLGATE_INVALID_OPTION', (error as Error).message, field);
  }
}

function invalid(field: string, expectation: string, value: unknown): TollgateError {
  return new TollgateError('ERR_TOLLGATE_INVALID_OPTION', `${field} ${expectation} (got ${typeof value})`, field);
}
