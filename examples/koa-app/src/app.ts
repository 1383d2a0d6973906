import { bodyParser } from '@koa/bodyparser';
import Router from '@koa/router';
import { rateLimit, type Store } from '@tollgate/koa';
import Koa, { type Context, type Middleware } from 'koa';
import { type Account, findAccount } from './accounts.js';

declare module 'koa' {
  interface DefaultState {
    account?: Account;
  }
}

export interface AppOptions {
  store: Store;
  /** Koa `app.proxy`: trust X-Forwarded-For (set it when the app runs behind a load balancer). Default off. */
  trustProxy?: boolean;
  /** Start of every Redis key of this app. Default `example`. */
  keyPrefix?: string;
}

/** Answers 401 without a known `X-API-Key`, else puts the account on `ctx.state.account`. */
const authenticate: Middleware = async (ctx, next) => {
  const account = findAccount(ctx.get('x-api-key') || undefined);
  if (account === undefined) {
    ctx.status = 401;
    ctx.body = { error: 'send a valid X-API-Key header' };
    return;
  }
  ctx.state.account = account;
  await next();
};

export function createApp({ store, trustProxy = false, keyPrefix = 'example' }: AppOptions): Koa {
  const app = new Koa({ proxy: trustProxy });
  const router = new Router();

  // Public: per client IP, 5 at once then 1 every 5 seconds (12 per minute).
  const publicLimit = rateLimit({ name: 'public', perMinute: 12, burst: 5, store, prefix: `${keyPrefix}:public` });

  // Authenticated: per API key, with a bigger allowance for the VIP tier.
  const byAccount = (ctx: Context) => ctx.state.account?.id;
  const tierLimits: Record<Account['tier'], Middleware> = {
    standard: rateLimit({ name: 'standard', perMinute: 60, key: byAccount, store, prefix: `${keyPrefix}:standard` }),
    vip: rateLimit({ name: 'vip', perMinute: 600, key: byAccount, store, prefix: `${keyPrefix}:vip` }),
  };
  const accountLimit: Middleware = (ctx, next) => tierLimits[ctx.state.account!.tier](ctx, next);

  // Login: strict, per IP, 5 attempts per 15 minutes, answered as problem+json.
  const loginLimit = rateLimit({
    name: 'login',
    algorithm: 'fixed-window',
    limit: 5,
    window: '15m',
    responseType: 'problem+json',
    message: 'Too many login attempts: try again later.',
    store,
    prefix: `${keyPrefix}:login`,
  });

  // Search: two limits at once, all-or-nothing; the headers list both.
  const searchLimit = rateLimit({
    limits: [
      { name: 'per-minute', perMinute: 20, burst: 4 },
      { name: 'per-hour', perHour: 100 },
    ],
    store,
    prefix: `${keyPrefix}:search`,
  });

  router.get('/health', (ctx) => {
    ctx.body = { ok: true };
  });
  router.get('/api/public', publicLimit, (ctx) => {
    ctx.body = { message: 'hello, world', remaining: ctx.state.rateLimit?.remaining };
  });
  router.get('/api/me', authenticate, accountLimit, (ctx) => {
    ctx.body = { account: ctx.state.account, remaining: ctx.state.rateLimit?.remaining };
  });
  router.post('/auth/login', loginLimit, (ctx) => {
    const { username, password } = (ctx.request.body ?? {}) as { username?: string; password?: string };
    if (username === 'alice' && password === 'wonderland') {
      ctx.body = { apiKey: 'demo-key' };
      return;
    }
    ctx.status = 401;
    ctx.body = { error: 'wrong username or password' };
  });
  router.get('/api/search', searchLimit, (ctx) => {
    ctx.body = { query: ctx.query.q ?? '', results: [] };
  });

  app.use(bodyParser());
  app.use(router.routes());
  app.use(router.allowedMethods());
  return app;
}
