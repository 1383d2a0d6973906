// One Hono hello-world server on @hono/node-server, limited by the variant named on the command
// line: the Hono counterpart of server.ts. Prints "ready on <port>" once listening. Every limit is
// far above what the run can reach, so each variant measures the cost of an admitted request.

import { serve } from '@hono/node-server';
import { getConnInfo } from '@hono/node-server/conninfo';
import { MemoryStore, RedisStore, rateLimit } from '@tollgate/hono';
import { Hono, type MiddlewareHandler } from 'hono';
import { RedisStore as HrlRedisStore, rateLimiter } from 'hono-rate-limiter';
import { Redis } from 'ioredis';
import { FRAMEWORKS } from './frameworks.js';

const HUGE = 1_000_000_000;

/** hono-rate-limiter's key: the connection's address, what Tollgate limits by without a key. */
const byAddress = (c: Parameters<typeof getConnInfo>[0]) => getConnInfo(c).remote.address ?? '';

/** hono-rate-limiter's Redis store over ioredis: the client shape its store calls. */
function hrlRedisStore(client: Redis) {
  return new HrlRedisStore({
    client: {
      scriptLoad: (script) => client.script('LOAD', script) as Promise<string>,
      evalsha: (sha, keys, args) => client.evalsha(sha, keys.length, ...keys, ...(args as string[])) as never,
      decr: (key) => client.decr(key),
      del: (key) => client.del(key),
    },
  });
}

function limiter(variant: string, redisUrl: string): MiddlewareHandler | undefined {
  const redis = () => new Redis(redisUrl);
  switch (variant) {
    case 'hono: no limiter':
      return undefined;
    case 'hono: tollgate memory':
      return rateLimit({ qps: 100_000, burst: HUGE, store: new MemoryStore(), prefix: 'bench' });
    case 'hono: tollgate redis':
      // As in server.ts: no timeout within reach of a callgrind event-loop turn.
      return rateLimit({ qps: 100_000, burst: HUGE, store: new RedisStore({ client: redis() }), prefix: 'bench', timeout: 60_000 });
    case 'hono-rate-limiter memory':
      return rateLimiter({ windowMs: 60_000, limit: HUGE, standardHeaders: 'draft-7', keyGenerator: byAddress });
    case 'hono-rate-limiter redis':
      return rateLimiter({
        windowMs: 60_000,
        limit: HUGE,
        standardHeaders: 'draft-7',
        keyGenerator: byAddress,
        store: hrlRedisStore(redis()),
      });
  }
  throw new Error(`unknown variant ${variant}: one of ${FRAMEWORKS.hono.variants.join(', ')}`);
}

const [variant = '', redisUrl = ''] = process.argv.slice(2);
const app = new Hono();
// Outside the limiter: read by the runner around each load.
app.get('/__cpu', (c) => {
  const { user, system } = process.cpuUsage();
  return c.json({ micros: user + system });
});
const limit = limiter(variant, redisUrl);
if (limit) app.use(limit);
app.get('/', (c) => c.text('hello, world'));
serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) => console.log(`ready on ${info.port}`));
