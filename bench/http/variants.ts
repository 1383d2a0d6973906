/** The servers the HTTP benchmark compares, in the order of its table; the first is the baseline. */
export const VARIANTS = [
  'no limiter',
  // What Express charges for any middleware: the floor under every limiter below.
  'no-op middleware',
  'tollgate memory',
  'tollgate redis',
  'express-rate-limit memory',
  'express-rate-limit + rate-limit-redis',
  'rate-limiter-flexible memory (minimal middleware)',
  'rate-limiter-flexible redis (minimal middleware)',
] as const;
export type Variant = (typeof VARIANTS)[number];
