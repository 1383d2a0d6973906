import { STATUS_CODES } from 'node:http';
import type { Decision } from '../decision.js';
import { requestRateLimit } from './request-rate-limit.js';
import { ceilSeconds } from './seconds.js';
import type { HttpBehaviourOptions, ResponseType } from './types.js';

export interface RejectBody {
  contentType: string;
  /** `payload` as sent: the text itself, or its JSON. */
  body: string;
  /** The body as a value: the text (`text/plain`) or the object `body` is the JSON of. */
  payload: string | object;
}

const TEXT = 'text/plain; charset=utf-8';
const JSON_TYPE = 'application/json; charset=utf-8';
const PROBLEM = 'application/problem+json';

function text(body: string): RejectBody {
  return { contentType: TEXT, body, payload: body };
}

function json(contentType: string, payload: object): RejectBody {
  return { contentType, body: JSON.stringify(payload), payload };
}

function describe(decision: Decision): string {
  // Refused by the failure mode ('closed'): the service is at fault, not the client's rate.
  const what = decision.source === 'policy' ? 'Service unavailable' : 'Too many requests';
  // Never: a limit of 0, a count that never resets spent, or a cost above what the limit admits.
  if (!Number.isFinite(decision.retryAfterMs)) return `${what}: the limit admits no more.`;
  const seconds = ceilSeconds(decision.retryAfterMs);
  return `${what}: retry in ${seconds} second${seconds === 1 ? '' : 's'}.`;
}

/**
 * The body of a rejected request: the default one of `responseType`, or the user's `message`
 * (which may be async; a function is told the decision as `req.rateLimit` shows it, with the key).
 */
export async function rejectBody(
  message: HttpBehaviourOptions['message'],
  responseType: ResponseType,
  status: number,
  req: unknown,
  decision: Decision,
  key: string,
): Promise<RejectBody> {
  const custom = typeof message === 'function' ? await message(req, requestRateLimit(decision, key)) : message;
  const title = STATUS_CODES[status] ?? 'Too Many Requests';
  if (custom !== undefined && typeof custom !== 'string') {
    return json(responseType === 'problem+json' ? PROBLEM : JSON_TYPE, custom);
  }
  const sentence = custom ?? describe(decision);
  if (responseType === 'text') return text(sentence);
  const retryAfter = Number.isFinite(decision.retryAfterMs) ? ceilSeconds(decision.retryAfterMs) : null;
  if (responseType === 'json') return json(JSON_TYPE, { error: title, message: sentence, limit: decision.limitName, retryAfter });
  // RFC 9457 problem details; `about:blank` means the title is the status phrase.
  return json(PROBLEM, { type: 'about:blank', title, status, detail: sentence, limit: decision.limitName, retryAfter });
}
