import type { HttpRequestInfo } from '@tollgate/core';

type KeyOption = (req: unknown, info: HttpRequestInfo) => string | undefined | Promise<string | undefined>;

/** What a rule's `key` returning undefined for a request with credentials but no `req.user` most likely means. */
export const UNAUTHENTICATED_KEY_WARNING =
  'a rate-limit key() returned undefined for a request that carries an Authorization header but has no req.user yet: ' +
  'the rate limit ran before your auth guard, so every user behind one address shares one budget. ' +
  'Register RateLimitInterceptor as APP_INTERCEPTOR instead of RateLimitGuard as APP_GUARD (interceptors run after every guard), ' +
  'or use @UseGuards(AuthGuard, RateLimitGuard); see "Keying by user" in the @tollgate/nestjs README';

/** A request that carries credentials an auth guard has not turned into `req.user` yet. */
function unauthenticated(req: unknown): boolean {
  const { headers, user } = (req ?? {}) as { headers?: Record<string, unknown>; user?: unknown };
  return user === undefined && headers?.authorization !== undefined;
}

/**
 * `key`, watched: the first time it returns undefined for a request with an Authorization header
 * and no `req.user`, `warn` is called (once for every key it watches).
 */
export function keyWatcher(warn: (message: string) => void): (key: KeyOption | undefined) => KeyOption | undefined {
  let warned = false;
  const check = (key: string | undefined, req: unknown) => {
    if (key === undefined && !warned && unauthenticated(req)) {
      warned = true;
      warn(UNAUTHENTICATED_KEY_WARNING);
    }
    return key;
  };
  return (key) => {
    if (typeof key !== 'function') return key;
    return (req, info) => {
      const result = key(req, info);
      return result instanceof Promise ? result.then((resolved) => check(resolved, req)) : check(result, req);
    };
  };
}
