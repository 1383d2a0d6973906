import { FASTIFY_VARIANTS } from './fastify-variants.js';
import { VARIANTS } from './variants.js';

/** The servers the instruction-count benchmark can run: one hello world per framework, its variants, the first the baseline. */
export const FRAMEWORKS = {
  express: {
    title: 'Express 5 hello world',
    server: 'http/server.ts',
    variants: VARIANTS as readonly string[],
    results: 'http-instructions',
    /** Whether the server reads the client population's X-Forwarded-For (it trusts its loopback proxy). */
    addresses: true,
  },
  fastify: {
    title: 'Fastify 5 hello world',
    server: 'http/fastify-server.ts',
    variants: FASTIFY_VARIANTS as readonly string[],
    results: 'http-instructions-fastify',
    addresses: false,
  },
  hono: {
    title: 'Hono 4 hello world on @hono/node-server',
    server: 'http/hono-server.ts',
    variants: [
      'hono: no limiter',
      'hono: tollgate memory',
      'hono: tollgate redis',
      'hono-rate-limiter memory',
      'hono-rate-limiter redis',
    ] as readonly string[],
    results: 'hono-http-instructions',
    addresses: false,
  },
} as const;
export type Framework = keyof typeof FRAMEWORKS;
