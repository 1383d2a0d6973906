import { decisionRecorder } from '@tollgate/core';

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

/** `request.rateLimit` as an accessor of Fastify's `Request`, built only when read (see `decisionRecorder`). */
export const recordDecision = decisionRecorder(fastifyRequest);
