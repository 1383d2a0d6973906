import { type RateLimitHook, rateLimit, rateLimitHook, type Store } from '@tollgate/fastify';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest, type preHandlerHookHandler } from 'fastify';
import { type Account, findAccount } from './accounts.js';

declare module 'fastify' {
  interface FastifyRequest {
    account?: Account;
  }
}

export interface AppOptions {
  store: Store;
  /** Fastify `trustProxy`: trust X-Forwarded-For (set it when the app runs behind a load balancer). Default off. */
  trustProxy?: boolean;
  /** Start of every Redis key of this app. Default `example`. */
  keyPrefix?: string;
}

/** Answers 401 without a known `X-API-Key`, else puts the account on `request.account`. */
async function authenticate(request: FastifyRequest, reply: FastifyReply) {
  const account = findAccount(request.headers['x-api-key'] as string | undefined);
  if (account === undefined) return reply.code(401).send({ error: 'send a valid X-API-Key header' });
  request.account = account;
}

/** Authenticated: per API key, with a bigger allowance for the VIP tier, after `authenticate` (preHandler). */
function accountLimit(store: Store, keyPrefix: string): preHandlerHookHandler {
  const byAccount = (request: FastifyRequest) => request.account?.id;
  const tiers: Record<Account['tier'], RateLimitHook> = {
    standard: rateLimitHook({ name: 'standard', perMinute: 60, key: byAccount, store, prefix: `${keyPrefix}:standard` }),
    vip: rateLimitHook({ name: 'vip', perMinute: 600, key: byAccount, store, prefix: `${keyPrefix}:vip` }),
  };
  return function limitByTier(request, reply, done) {
    tiers[request.account!.tier](request, reply, done);
  };
}

export async function createApp({ store, trustProxy = false, keyPrefix = 'example' }: AppOptions): Promise<FastifyInstance> {
  const app = Fastify({ trustProxy });
  // No rule for every route: each route below opts in with config.rateLimit, which takes the store from here.
  await app.register(rateLimit, { global: false, store });

  app.get('/health', () => ({ ok: true }));

  // Public: per client IP, 5 at once then 1 every 5 seconds (12 per minute).
  const publicLimit = { name: 'public', perMinute: 12, burst: 5, prefix: `${keyPrefix}:public` };
  app.get('/api/public', { config: { rateLimit: publicLimit } }, (request) => ({
    message: 'hello, world',
    remaining: request.rateLimit?.remaining,
  }));

  app.get('/api/me', { preHandler: [authenticate, accountLimit(store, keyPrefix)] }, (request) => ({
    account: request.account,
    remaining: request.rateLimit?.remaining,
  }));

  // Login: strict, per IP, 5 attempts per 15 minutes, answered as problem+json.
  const loginLimit = {
    name: 'login',
    algorithm: 'fixed-window',
    limit: 5,
    window: '15m',
    responseType: 'problem+json',
    message: 'Too many login attempts: try again later.',
    prefix: `${keyPrefix}:login`,
  } as const;
  app.post('/auth/login', { config: { rateLimit: loginLimit } }, (request, reply) => {
    const { username, password } = (request.body ?? {}) as { username?: string; password?: string };
    if (username === 'alice' && password === 'wonderland') return { apiKey: 'demo-key' };
    return reply.code(401).send({ error: 'wrong username or password' });
  });

  // Search: two limits at once, all-or-nothing; the headers list both.
  const searchLimit = {
    limits: [
      { name: 'per-minute', perMinute: 20, burst: 4 },
      { name: 'per-hour', perHour: 100 },
    ],
    prefix: `${keyPrefix}:search`,
  };
  app.get('/api/search', { config: { rateLimit: searchLimit } }, (request) => ({
    query: (request.query as { q?: string }).q ?? '',
    results: [],
  }));
  return app;
}
