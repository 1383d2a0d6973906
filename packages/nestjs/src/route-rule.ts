import { invalidOption } from '@tollgate/core';
import type { RouteRule } from './options.js';

/** The rule as the guard checks it: the HTTP limiter, and the handler that answers its rejections. */
export function withHandler<T extends RouteRule>(limiter: T, handler: RouteRule['handler']): T {
  if (handler === undefined) return limiter;
  if (typeof handler !== 'function') throw invalidOption('handler', 'must be a function', handler);
  return { ...limiter, handler };
}
