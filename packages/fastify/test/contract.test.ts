import { createRuleSet, loadRuleSet, RedisStore, TollgateError } from '@tollgate/core';
import { describeHttpAdapter } from '@tollgate/testing';
import type { FastifyCallbacks } from '../src/index.js';
import { contractRateLimit, FASTIFY_VERSIONS, type FastifyLimit } from './serve.js';

describeHttpAdapter<FastifyLimit, RedisStore>({
  kit: { RedisStore, loadRuleSet, createRuleSet, TollgateError },
  rateLimit: contractRateLimit,
  frameworks: FASTIFY_VERSIONS,
  tooManyHandler: (async (request, reply, rejection) => {
    await Promise.resolve();
    return reply.code(rejection.status).send({ tooMany: true, retryAfterMs: request.rateLimit?.retryAfterMs });
  }) satisfies FastifyCallbacks['handler'],
});
