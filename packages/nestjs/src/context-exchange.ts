import type { ExecutionContext } from '@nestjs/common';
import { TollgateError } from '@tollgate/core';
import { httpExchange, type RateLimitExchange } from './exchange.js';

/**
 * The exchange of an HTTP request (Express, Fastify) or a GraphQL operation (a context holding
 * `req`/`res` or `request`/`reply`); undefined for other transports, which pass unlimited.
 */
export function contextExchange(context: ExecutionContext): RateLimitExchange | undefined {
  const type = context.getType<string>();
  if (type === 'http') {
    const http = context.switchToHttp();
    return httpExchange(http.getRequest(), http.getResponse());
  }
  if (type === 'graphql') {
    // biome-ignore lint/suspicious/noExplicitAny: GraphQL contexts are whatever the app builds
    const gql = context.getArgByIndex<Record<string, any> | undefined>(2);
    const req = gql?.req ?? gql?.request;
    const res = gql?.res ?? gql?.reply ?? req?.res;
    if (!req || !res) {
      throw new TollgateError(
        'ERR_TOLLGATE_INVALID_OPTION',
        'the GraphQL context must carry the request and response (`context: ({ req, res }) => ({ req, res })`) for rate limiting',
        'context',
      );
    }
    return httpExchange(req, res, { writeRejection: false });
  }
  return undefined;
}

/**
 * What identifies one request for "count once per rule": the HTTP request itself, which the
 * guard and the interceptor both see (each gets its own arguments array); the arguments array
 * (one per call) elsewhere.
 */
export function invocationOf(context: ExecutionContext): object {
  return context.getType() === 'http' ? context.switchToHttp().getRequest<object>() : context.getArgs();
}
