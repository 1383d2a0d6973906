import { createLimiter, type Store } from '@tollgate/core';
import { createThrottledFetch, type ThrottledFetch } from '@tollgate/fetch';

/**
 * The calls to the LLM API, shared by every process on `store`: they pause, in every process,
 * when the API says its token or request budget is down to what the calls in flight may still
 * spend (`inFlight` calls of at most `callTokens`), so it never has to answer 429.
 */
export function upstreamFetch(store: Store, prefix: string, inFlight: number, callTokens: number): ThrottledFetch {
  return createThrottledFetch({
    limiter: createLimiter({ qps: 200, store, prefix: `${prefix}:upstream` }),
    store,
    prefix: `${prefix}:upstream-pause`,
    headroom: { tokens: inFlight * callTokens, requests: inFlight },
    maxWait: '2m',
  });
}
