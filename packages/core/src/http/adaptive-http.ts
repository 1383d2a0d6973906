import {
  type AdaptiveAdmission,
  type AdaptiveLimiter,
  type AdaptiveRejection,
  type AdaptiveSlot,
  createAdaptiveLimiter,
} from '../adaptive/adaptive-limiter.js';
import { ADAPTIVE_LIMITER_FIELDS, type AdaptiveLimiterOptions } from '../adaptive/adaptive-options.js';
import { invalidOption } from '../errors.js';
import { refuseUnknownFields } from '../option-fields.js';
import { ceilSeconds } from './seconds.js';

/** How a finished request counts: its round trip moves the limit (`success`), it backs the limit off (`dropped`), or neither (`ignore`). */
export type RequestOutcome = 'success' | 'dropped' | 'ignore';

/** The adaptive limiter's options plus what an HTTP middleware adds; `Req` is the framework's request (Koa: the context). */
export interface HttpAdaptiveOptions<Req = unknown> extends AdaptiveLimiterOptions<Req> {
  /** Status of a request refused for want of a slot: 503 (default: the service is overloaded) or 429. */
  statusCode?: 503 | 429;
  /**
   * How a finished request counts, from its status (undefined: the connection closed before the
   * response was sent). Default: a 5xx is `dropped`, an unsent response `ignore`, the rest `success`.
   */
  outcome?: (statusCode: number | undefined) => RequestOutcome;
  /** True: the request takes no slot (health checks, metrics scrapes). */
  skip?: (req: Req) => boolean;
}

const HTTP_ADAPTIVE_FIELDS = {
  ...ADAPTIVE_LIMITER_FIELDS,
  statusCode: true,
  outcome: true,
  skip: true,
} as const satisfies Record<keyof HttpAdaptiveOptions, true>;

export type HttpAdaptiveVerdict =
  | {
      readonly action: 'proceed';
      /** Call once the response is over (`settleWhenDone` does) with its status. */
      readonly settle: (statusCode: number | undefined) => void;
    }
  | {
      readonly action: 'reject';
      readonly status: number;
      readonly headers: readonly (readonly [string, string])[];
      readonly contentType: string;
      readonly body: string;
      readonly rejection: AdaptiveRejection;
    };

export interface HttpAdaptiveLimiter<Req> {
  readonly limiter: AdaptiveLimiter<Req>;
  /** A slot for the request (waiting in the queue when one is configured), or the response refusing it. */
  admit(req: Req): Promise<HttpAdaptiveVerdict>;
}

export function defaultOutcome(statusCode: number | undefined): RequestOutcome {
  if (statusCode === undefined) return 'ignore';
  return statusCode >= 500 ? 'dropped' : 'success';
}

const PROCEED_UNCOUNTED: HttpAdaptiveVerdict = { action: 'proceed', settle: () => {} };

/** What the Express, Koa and Nest adaptive middleware share: options checked once, a verdict per request. */
export function createHttpAdaptiveLimiter<Req>(options: HttpAdaptiveOptions<Req>): HttpAdaptiveLimiter<Req> {
  if (typeof options !== 'object' || options === null) throw invalidOption('options', 'must be an object', options);
  refuseUnknownFields(options, HTTP_ADAPTIVE_FIELDS);
  const { statusCode = 503, outcome = defaultOutcome, skip, ...limiterOptions } = options;
  if (statusCode !== 503 && statusCode !== 429) throw invalidOption('statusCode', 'must be 503 or 429', statusCode);
  for (const [field, value] of [
    ['outcome', outcome],
    ['skip', skip],
  ] as const) {
    if (value !== undefined && typeof value !== 'function') throw invalidOption(field, 'must be a function', value);
  }
  const limiter = createAdaptiveLimiter(limiterOptions);
  const verdictOf = (admission: AdaptiveAdmission): HttpAdaptiveVerdict =>
    admission.admitted ? { action: 'proceed', settle: (status) => giveBack(admission, outcome(status)) } : refusal(admission, statusCode);
  return {
    limiter,
    admit: async (req) => (skip?.(req) ? PROCEED_UNCOUNTED : verdictOf(await limiter.acquire(req))),
  };
}

function giveBack(slot: AdaptiveSlot, outcome: RequestOutcome): void {
  if (outcome === 'dropped') slot.dropped();
  else if (outcome === 'ignore') slot.ignore();
  else slot.success();
}

function refusal(rejection: AdaptiveRejection, status: 503 | 429): HttpAdaptiveVerdict {
  const seconds = ceilSeconds(rejection.retryAfterMs);
  const body =
    status === 503
      ? `Service overloaded: retry in ${seconds} second${seconds === 1 ? '' : 's'}.`
      : `Too many requests in flight: retry in ${seconds} second${seconds === 1 ? '' : 's'}.`;
  return {
    action: 'reject',
    status,
    headers: [['retry-after', String(seconds)]],
    contentType: 'text/plain; charset=utf-8',
    body,
    rejection,
  };
}
