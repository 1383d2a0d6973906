// One Express hello-world server, limited by the variant named on the command line.
// Prints "ready on <port>" once listening. Every limit is far above what the run can reach, and
// every limit's state lives for an hour or more, so each variant measures the cost of an admitted
// request in steady state: a returning client finds its entry alive.
import { MemoryStore, RedisStore, rateLimit } from '@tollgate/express';
import express, { type RequestHandler } from 'express';
import { type Options as ErlOptions, rateLimit as expressRateLimit } from 'express-rate-limit';
import { Redis } from 'ioredis';
import { RedisStore as ErlRedisStore, type RedisReply } from 'rate-limit-redis';
import { type RateLimiterAbstract, RateLimiterMemory, RateLimiterRedis } from 'rate-limiter-flexible';
import { VARIANTS, type Variant } from './variants.js';

const HUGE = 1_000_000_000;
/**
 * Tollgate's GCRA: one request a minute with a burst no run reaches, so each request adds a minute
 * to its client's state, which outlives the rotation back to that client (burst × interval must
 * stay under 50 years).
 */
const TOLLGATE_LIMIT = { perMinute: 1, burst: 1_000_000, prefix: 'bench' } as const;
const HOUR_MS = 3_600_000;

/** express-rate-limit as its README sets it up, a window of an hour, with the draft of headers given. */
function erl(standardHeaders: 'draft-7' | 'draft-8', store?: ErlOptions['store']): RequestHandler {
  return expressRateLimit({ windowMs: HOUR_MS, limit: HUGE, standardHeaders, legacyHeaders: false, ...(store ? { store } : {}) });
}

/** rate-limit-redis on ioredis, as its README shows. */
function erlRedisStore(client: Redis): ErlOptions['store'] {
  return new ErlRedisStore({
    sendCommand: (command: string, ...args: string[]) => client.call(command, ...args) as Promise<RedisReply>,
  });
}

function limiter(variant: Variant, redisUrl: string): RequestHandler | undefined {
  const redis = () => new Redis(redisUrl);
  switch (variant) {
    case 'no limiter':
      return undefined;
    case 'no-op middleware':
      return (_req, _res, next) => next();
    case 'tollgate memory':
      return rateLimit({ ...TOLLGATE_LIMIT, store: new MemoryStore() });
    case 'tollgate redis':
      // The peers never time out a Redis call. Under callgrind one turn of the event loop takes
      // about 100 ms, so the default timeout would send part of the requests to the failure mode
      // (and open the breaker), which is not the path measured.
      return rateLimit({ ...TOLLGATE_LIMIT, store: new RedisStore({ client: redis() }), timeout: 60_000 });
    case 'express-rate-limit memory (draft-7)':
      return erl('draft-7');
    case 'express-rate-limit memory (draft-8)':
      return erl('draft-8');
    case 'express-rate-limit + rate-limit-redis (draft-7)':
      return erl('draft-7', erlRedisStore(redis()));
    case 'express-rate-limit + rate-limit-redis (draft-8)':
      return erl('draft-8', erlRedisStore(redis()));
    case 'rate-limiter-flexible memory (minimal middleware)':
      return flexibleMiddleware(new RateLimiterMemory({ points: HUGE, duration: HOUR_MS / 1000 }));
    case 'rate-limiter-flexible redis (minimal middleware)':
      return flexibleMiddleware(new RateLimiterRedis({ storeClient: redis(), points: HUGE, duration: HOUR_MS / 1000 }));
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
// The benchmark's clients come through a proxy on loopback: `req.ip` is their X-Forwarded-For address.
app.set('trust proxy', 'loopback');
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
// Under callgrind on a loaded machine the event loop can stall for seconds: a keep-alive socket
// must not time out between a response and the request the client sends right after it. The
// timer is still set per response, as with the default 5 s.
server.keepAliveTimeout = 600_000;
server.headersTimeout = 601_000;
