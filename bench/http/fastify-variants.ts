/** The Fastify servers the HTTP benchmark compares (`BENCH_FRAMEWORK=fastify`), in the order of its table; the first is the baseline. */
export const FASTIFY_VARIANTS = [
  'no limiter',
  'tollgate memory',
  'tollgate redis',
  '@fastify/rate-limit memory',
  '@fastify/rate-limit redis',
] as const;
export type FastifyVariant = (typeof FASTIFY_VARIANTS)[number];
