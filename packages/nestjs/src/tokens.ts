/** Injection token of the module's options. */
export const RATE_LIMIT_OPTIONS = Symbol('tollgate:rate-limit-options');
/** Metadata keys written by the decorators. */
export const RATE_LIMIT_RULE = 'tollgate:rate-limit-rule';
export const SKIP_RATE_LIMIT = 'tollgate:skip-rate-limit';
