import { type AdaptiveLimiter, createHttpAdaptiveLimiter, type HttpAdaptiveOptions, settleWhenDone } from '@tollgate/core';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';

export type AdaptiveConcurrencyOptions = HttpAdaptiveOptions<FastifyRequest>;

export type AdaptiveConcurrencyPlugin = FastifyPluginAsync & {
  /** The limiter underneath: its `snapshot()`, its events (`limit`, `sample`, `rejected`), `close()`. */
  readonly limiter: AdaptiveLimiter<FastifyRequest>;
};

/**
 * A Fastify plugin (Fastify 4 and 5) holding each request of the context it is registered in to a
 * concurrency limit that follows measured latency: `await app.register(adaptiveConcurrency({ ... }))`.
 * An `onRequest` hook takes a slot (or waits for one in the queue, when configured); the slot is
 * given back once the response is sent, its status telling how it went, or once the connection
 * closed first. A request finding no slot is answered 503 (or 429) with `Retry-After`.
 * `partition`, `skip` get the Fastify request.
 */
export function adaptiveConcurrency(options: AdaptiveConcurrencyOptions = {}): AdaptiveConcurrencyPlugin {
  const http = createHttpAdaptiveLimiter(options);
  const onRequest = async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const verdict = await http.admit(request);
    if (verdict.action === 'proceed') {
      // On the Node response: its 'close' comes after the response was sent, and on an abort too.
      settleWhenDone(reply.raw, verdict.settle);
      return;
    }
    for (const [name, value] of verdict.headers) reply.header(name, value);
    await reply.code(verdict.status).type(verdict.contentType).send(verdict.body);
  };
  const plugin: FastifyPluginAsync = async (fastify) => {
    fastify.addHook('onRequest', onRequest);
  };
  // fastify-plugin: the hook reaches the routes of the context the plugin is registered in.
  return Object.assign(fp(plugin, { fastify: '4.x || 5.x', name: '@tollgate/fastify/adaptive' }), { limiter: http.limiter });
}
