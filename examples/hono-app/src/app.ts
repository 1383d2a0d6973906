import { rateLimit, type Store } from '@tollgate/hono';
import { Hono, type MiddlewareHandler } from 'hono';
import { type Account, findAccount } from './accounts.js';

declare module 'hono' {
  interface ContextVariableMap {
    account: Account;
  }
}

export interface AppOptions {
  store: Store;
  /** Read the client address from X-Forwarded-For set by a proxy on this machine (a load balancer in front). Default off. */
  trustProxy?: boolean;
  /** Start of every Redis key of this app. Default `example`. */
  keyPrefix?: string;
}

/** Answers 401 without a known `X-API-Key`, else puts the account on `c.get('account')`. */
const authenticate: MiddlewareHandler = async (c, next) => {
  const account = findAccount(c.req.header('x-api-key'));
  if (account === undefined) return c.json({ error: 'send a valid X-API-Key header' }, 401);
  c.set('account', account);
  await next();
};

export function createApp({ store, trustProxy = false, keyPrefix = 'example' }: AppOptions): Hono {
  // Hono has no app-wide proxy setting: each limiter is told which proxies it may believe.
  const shared = { store, trustProxy: trustProxy ? 'loopback' : false };

  // Public: per client IP, 5 at once then 1 every 5 seconds (12 per minute).
  const publicLimit = rateLimit({ name: 'public', perMinute: 12, burst: 5, ...shared, prefix: `${keyPrefix}:public` });

  // Authenticated: per API key, with a bigger allowance for the VIP tier.
  const tierLimits: Record<Account['tier'], MiddlewareHandler> = {
    standard: rateLimit({ name: 'standard', perMinute: 60, key: (c) => c.get('account').id, ...shared, prefix: `${keyPrefix}:standard` }),
    vip: rateLimit({ name: 'vip', perMinute: 600, key: (c) => c.get('account').id, ...shared, prefix: `${keyPrefix}:vip` }),
  };
  const accountLimit: MiddlewareHandler = (c, next) => tierLimits[c.get('account').tier](c, next);

  // Login: strict, per IP, 5 attempts per 15 minutes, answered as problem+json.
  const loginLimit = rateLimit({
    name: 'login',
    algorithm: 'fixed-window',
    limit: 5,
    window: '15m',
    responseType: 'problem+json',
    message: 'Too many login attempts: try again later.',
    ...shared,
    prefix: `${keyPrefix}:login`,
  });

  // Search: two limits at once, all-or-nothing; the headers list both.
  const searchLimit = rateLimit({
    limits: [
      { name: 'per-minute', perMinute: 20, burst: 4 },
      { name: 'per-hour', perHour: 100 },
    ],
    ...shared,
    prefix: `${keyPrefix}:search`,
  });

  return new Hono()
    .get('/health', (c) => c.json({ ok: true }))
    .get('/api/public', publicLimit, (c) => c.json({ message: 'hello, world', remaining: c.get('rateLimit')?.remaining }))
    .get('/api/me', authenticate, accountLimit, (c) => c.json({ account: c.get('account'), remaining: c.get('rateLimit')?.remaining }))
    .post('/auth/login', loginLimit, async (c) => {
      const { username, password } = await c.req.json<{ username?: string; password?: string }>().catch(() => ({}) as never);
      if (username === 'alice' && password === 'wonderland') return c.json({ apiKey: 'demo-key' });
      return c.json({ error: 'wrong username or password' }, 401);
    })
    .get('/api/search', searchLimit, (c) => c.json({ query: c.req.query('q') ?? '', results: [] }));
}
