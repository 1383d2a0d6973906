export type { AdaptiveFetch, AdaptiveFetchOptions } from './adaptive-fetch.js';
export { createAdaptiveFetch, defaultFetchOutcome } from './adaptive-fetch.js';
export type { RetryPolicy, ThrottledFetchEvents, ThrottledFetchOptions } from './options.js';
export type { ThrottledFetch } from './throttled-fetch.js';
export { createThrottledFetch } from './throttled-fetch.js';
export type { BudgetUnit, UpstreamBudget } from './token-budgets.js';
export type { BudgetHeadroom, IgnoredHeader, UpstreamLimits, UpstreamPolicy } from './upstream-headers.js';
export { readUpstreamLimits } from './upstream-headers.js';
