import { IncomingMessage } from 'node:http';
import { decisionRecorder } from '@tollgate/core';

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

/** `req.rateLimit` as an accessor of Express's `request`, built only when read (see `decisionRecorder`). */
export const recordDecision = decisionRecorder(expressRequest);
