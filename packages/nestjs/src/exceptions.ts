import { HttpException } from '@nestjs/common';
import type { RejectVerdict } from './exchange.js';

/**
 * Thrown by the guard once a rejected request has been answered, to stop Nest's pipeline.
 * Over HTTP the response is already sent (Nest's own exception filter then only ends it);
 * where nothing was written (GraphQL) it carries the status and the body (text, or the object
 * of a JSON body) to the client.
 */
export class RateLimitRejectedException extends HttpException {
  constructor(readonly verdict: RejectVerdict) {
    super(verdict.payload, verdict.status);
  }
}

/** Thrown when the client went away while its request was held back (shaping): the handler never runs. */
export class ClientClosedRequestException extends HttpException {
  constructor() {
    super('Client Closed Request', 499);
  }
}
