import { STATUS_CODES } from 'node:http';
import { HttpException } from '@nestjs/common';
import { retryAfterSeconds } from '@tollgate/core';
import type { RejectVerdict } from './exchange.js';

/**
 * What a GraphQL error built from the exception carries (graphql-js copies an error's
 * `extensions`): `code` is the status phrase in capitals (`TOO_MANY_REQUESTS`, or
 * `SERVICE_UNAVAILABLE` when the store failed closed), `retryAfter` the seconds to wait (null:
 * the limit admits no more), and `http.status` the status Apollo Server (and GraphQL Yoga) answer
 * with and then take out of the payload.
 */
export interface RateLimitErrorExtensions {
  readonly code: string;
  readonly retryAfter: number | null;
  readonly http: { readonly status: number };
}

const codeOf = (status: number) => (STATUS_CODES[status] ?? 'Too Many Requests').toUpperCase().replace(/[^A-Z0-9]+/g, '_');

/**
 * Thrown by the guard once a rejected request has been answered, to stop Nest's pipeline.
 * Over HTTP the response is already sent (Nest's own exception filter then only ends it);
 * where nothing was written (GraphQL) it carries the status and the body (text, or the object
 * of a JSON body) to the client, and `extensions` to the GraphQL error. A rejection is an
 * answer, not a fault: its stack holds no frames, so none reach a client.
 */
export class RateLimitRejectedException extends HttpException {
  readonly extensions: RateLimitErrorExtensions;

  constructor(readonly verdict: RejectVerdict) {
    super(verdict.payload, verdict.status);
    this.extensions = {
      code: codeOf(verdict.status),
      retryAfter: retryAfterSeconds(verdict.decision) ?? null,
      http: { status: verdict.status },
    };
    this.stack = `${this.name}: ${this.message}`;
  }
}

/** Thrown when the client went away while its request was held back (shaping): the handler never runs. */
export class ClientClosedRequestException extends HttpException {
  constructor() {
    super('Client Closed Request', 499);
  }
}
