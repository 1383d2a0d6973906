/** The servers the HTTP benchmark compares, in the order of its table; the first is the baseline. */
export const VARIANTS = [
  'no limiter',
  // What Express charges for any middleware: the floor under every limiter below.
  'no-op middleware',
  'tollgate memory',
  'tollgate redis',
  // express-rate-limit's README recommends draft-8 headers, which hash every key with SHA-256 for
  // the partition key; draft-7 sends the same two fields as Tollgate's default without the hash.
  'express-rate-limit memory (draft-7)',
  'express-rate-limit memory (draft-8)',
  'express-rate-limit + rate-limit-redis (draft-7)',
  'express-rate-limit + rate-limit-redis (draft-8)',
  'rate-limiter-flexible memory (minimal middleware)',
  'rate-limiter-flexible redis (minimal middleware)',
] as const;
export type Variant = (typeof VARIANTS)[number];
