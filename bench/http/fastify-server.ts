// One Fastify hello-world server, limited by the variant named on the command line (the
// Express server's counterpart, http/server.ts). Prints "ready on <port>" once listening. Every
// limit is far above what the run can reach, so each variant measures the cost of an admitted request.
import fastifyRateLimit from '@fastify/rate-limit';
import { MemoryStore, RedisStore, rateLimit } from '@tollgate/fastify';
import Fastify, { type FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import { FASTIFY_VARIANTS, type FastifyVariant } from './fastify-variants.js';

const HUGE = 1_000_000_000;

async function limit(app: FastifyInstance, variant: FastifyVariant, redisUrl: string): Promise<void> {
  switch (variant) {
    case 'no limiter':
      return;
    case 'tollgate memory':
      await app.register(rateLimit, { qps: 100_000, burst: HUGE, store: new MemoryStore(), prefix: 'bench' });
      return;
    case 'tollgate redis':
      // As in http/server.ts: the peer never times out a Redis call, and under callgrind the default timeout would.
      await app.register(rateLimit, {
        qps: 100_000,
        burst: HUGE,
        store: new RedisStore({ client: new Redis(redisUrl) }),
        prefix: 'bench',
        timeout: 60_000,
      });
      return;
    case '@fastify/rate-limit memory':
      await app.register(fastifyRateLimit, { max: HUGE, timeWindow: 60_000 });
      return;
    case '@fastify/rate-limit redis':
      await app.register(fastifyRateLimit, { max: HUGE, timeWindow: 60_000, redis: new Redis(redisUrl) });
      return;
  }
}

const [variant, redisUrl = ''] = process.argv.slice(2) as [FastifyVariant, string?];
if (!FASTIFY_VARIANTS.includes(variant)) throw new Error(`unknown variant ${variant}: one of ${FASTIFY_VARIANTS.join(', ')}`);
const app = Fastify();
// Registered before the limiter, so it is not limited: the runner reads the server's CPU time around each load.
app.get('/__cpu', async () => {
  const { user, system } = process.cpuUsage();
  return { micros: user + system };
});
await limit(app, variant, redisUrl);
app.get('/', async () => 'hello, world');
await app.listen({ port: 0, host: '127.0.0.1' });
const address = app.server.address();
console.log(`ready on ${typeof address === 'object' && address !== null ? address.port : ''}`);
