import { describeBuiltPackage } from '@tollgate/testing';

// `rateLimit` is the plugin, a function of Fastify's instance: `rateLimitHook` builds a limiter from options.
describeBuiltPackage(new URL('..', import.meta.url), '@tollgate/fastify', 'rateLimitHook');
