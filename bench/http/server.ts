// One Express hello-world server, limited by the variant named on the command line.
// Prints "ready on <port>" once listening. Every limit is far above what the run can reach,
// so each variant measures the cost of an admitted request.
import { MemoryStore, RedisStore, rateLimit } from '@tollgate/express';
import express, { type RequestHandler } from 'express';
import { rateLimit as expressRateLimit } from 'express-rate-limit';
import { Redis } from 'ioredis';
import { RedisStore as ErlRedisStore, type RedisReply } from 'rate-limit-redis';
import { type RateLimiterAbstract, RateLimiterMemory, RateLimiterRedis } from 'rate-limiter-flexible';
import { VARIANTS, type Variant } from './variants.js';

const HUGE = 1_000_000_000;

function limiter(variant: Variant, redisUrl: string): RequestHandler | undefined {
  const redis = () => new Redis(redisUrl);
  switch (variant) {
    case 'no limiter':
      return undefined;
    case 'no-op middleware':
      return (_req, _res, next) => next();
    case 'tollgate memory':
      return rateLimit({ qps: 100_000, burst: HUGE, store: new MemoryStore(), prefix: 'bench' });
    case 'tollgate redis':
      // The peers never time out a Redis call. Under callgrind one turn of the event loop takes
      // about 100 ms, so the default timeout would send part of the requests to the failure mode
      // (and open the breaker), which is not the path measured.
      return rateLimit({ qps: 100_000, burst: HUGE, store: new RedisStore({ client: redis() }), prefix: 'bench', timeout: 60_000 });
    case 'express-rate-limit memory':
      return expressRateLimit({ windowMs: 60_000, limit: HUGE, standardHeaders: 'draft-8', legacyHeaders: false });
    case 'express-rate-limit + rate-limit-redis': {
      const client = redis();
      const store = new ErlRedisStore({
        sendCommand: (command: string, ...args: string[]) => client.call(command, ...args) as Promise<RedisReply>,
      });
      return expressRateLimit({ windowMs: 60_000, limit: HUGE, standardHeaders: 'draft-8', legacyHeaders: false, store });
    }
    case 'rate-limiter-flexible memory (minimal middleware)':
      return flexibleMiddleware(new RateLimiterMemory({ points: HUGE, duration: 60 }));
    case 'rate-limiter-flexible redis (minimal middleware)':
      return flexibleMiddleware(new RateLimiterRedis({ storeClient: redis(), points: HUGE, duration: 60 }));
  }
}

/** The least a hand-written rate-limiter-flexible middleware does: consume by IP, 429 when refused. */
function flexibleMiddleware(limiter: RateLimiterAbstract): RequestHandler {
  return (req, res, next) => {
    limiter.consume(req.ip ?? '').then(
      () => next(),
      () => res.status(429).send('Too Many Requests'),
    );
  };
}

const [variant, redisUrl = ''] = process.argv.slice(2) as [Variant, string?];
if (!VARIANTS.includes(variant)) throw new Error(`unknown variant ${variant}: one of ${VARIANTS.join(', ')}`);
const app = express();
// Outside the limiter: the runner reads the server's CPU time around each load, a figure that a
// busy machine disturbs much less than throughput.
app.get('/__cpu', (_req, res) => {
  const { user, system } = process.cpuUsage();
  res.json({ micros: user + system });
});
const limit = limiter(variant, redisUrl);
if (limit) app.use(limit);
app.get('/', (_req, res) => {
  res.send('hello, world');
});
const server = app.listen(0, '127.0.0.1', () => {
  const address = server.address();
  console.log(`ready on ${typeof address === 'object' && address !== null ? address.port : ''}`);
});
