import { STATUS_CODES } from 'node:http';
import type { Decision } from '../decision.js';
import { ceilSeconds } from './headers.js';
import type { HttpBehaviourOptions, ResponseType } from './types.js';

export interface RejectBody {
  contentType: string;
  body: string;
}

const TEXT = 'text/plain; charset=utf-8';
const JSON_TYPE = 'application/json; charset=utf-8';
const PROBLEM = 'application/problem+json';

function describe(decision: Decision): string {
  if (!Number.isFinite(decision.retryAfterMs)) return 'Too many requests: this request exceeds what the limit can ever admit.';
  const seconds = ceilSeconds(decision.retryAfterMs);
  return `Too many requests: retry in ${seconds} second${seconds === 1 ? '' : 's'}.`;
}

/** The body of a rejected request: the default one of `responseType`, or the user's `message` (which may be async). */
export async function rejectBody(
  message: HttpBehaviourOptions['message'],
  responseType: ResponseType,
  status: number,
  req: unknown,
  decision: Decision,
): Promise<RejectBody> {
  const custom = typeof message === 'function' ? await message(req, decision) : message;
  const title = STATUS_CODES[status] ?? 'Too Many Requests';
  if (custom !== undefined && typeof custom !== 'string') {
    return { contentType: responseType === 'problem+json' ? PROBLEM : JSON_TYPE, body: JSON.stringify(custom) };
  }
  const text = custom ?? describe(decision);
  if (responseType === 'text') return { contentType: TEXT, body: text };
  const retryAfter = Number.isFinite(decision.retryAfterMs) ? ceilSeconds(decision.retryAfterMs) : null;
  if (responseType === 'json') {
    return { contentType: JSON_TYPE, body: JSON.stringify({ error: title, message: text, limit: decision.limitName, retryAfter }) };
  }
  // RFC 9457 problem details; `about:blank` means the title is the status phrase.
  return {
    contentType: PROBLEM,
    body: JSON.stringify({ type: 'about:blank', title, status, detail: text, limit: decision.limitName, retryAfter }),
  };
}
