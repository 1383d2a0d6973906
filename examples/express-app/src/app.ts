import { rateLimit, type Store } from '@tollgate/express';
import express, { type RequestHandler } from 'express';
import { type Account, findAccount } from './accounts.js';

declare global {
  namespace Express {
    interface Request {
      account?: Account;
    }
  }
}

export interface AppOptions {
  store: Store;
  /** Express `trust proxy` (set it when the app runs behind a load balancer). Default off. */
  trustProxy?: boolean | string | number;
  /** Start of every Redis key of this app. Default `example`. */
  keyPrefix?: string;
}

/** Answers 401 without a known `X-API-Key`, else puts the account on `req.account`. */
const authenticate: RequestHandler = (req, res, next) => {
  const account = findAccount(req.get('x-api-key'));
  if (account === undefined) {
    res.status(401).json({ error: 'send a valid X-API-Key header' });
    return;
  }
  req.account = account;
  next();
};

export function createApp({ store, trustProxy = false, keyPrefix = 'example' }: AppOptions): express.Express {
  const app = express();
  app.set('trust proxy', trustProxy);
  app.use(express.json());

  // Public: per client IP, 5 at once then 1 every 5 seconds (12 per minute).
  const publicLimit = rateLimit({ name: 'public', perMinute: 12, burst: 5, store, prefix: `${keyPrefix}:public` });

  // Authenticated: per API key, with a bigger allowance for the VIP tier.
  const byAccount = (req: express.Request) => req.account?.id;
  const tierLimits: Record<Account['tier'], RequestHandler> = {
    standard: rateLimit({ name: 'standard', perMinute: 60, key: byAccount, store, prefix: `${keyPrefix}:standard` }),
    vip: rateLimit({ name: 'vip', perMinute: 600, key: byAccount, store, prefix: `${keyPrefix}:vip` }),
  };
  const accountLimit: RequestHandler = (req, res, next) => tierLimits[req.account!.tier](req, res, next);

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

  app.get('/health', (_req, res) => {
    res.json({ ok: true });
  });
  app.get('/api/public', publicLimit, (req, res) => {
    res.json({ message: 'hello, world', remaining: req.rateLimit?.remaining });
  });
  app.get('/api/me', authenticate, accountLimit, (req, res) => {
    res.json({ account: req.account, remaining: req.rateLimit?.remaining });
  });
  app.post('/auth/login', loginLimit, (req, res) => {
    const { username, password } = (req.body ?? {}) as { username?: string; password?: string };
    if (username === 'alice' && password === 'wonderland') {
      res.json({ apiKey: 'demo-key' });
      return;
    }
    res.status(401).json({ error: 'wrong username or password' });
  });
  app.get('/api/search', searchLimit, (req, res) => {
    res.json({ query: req.query.q ?? '', results: [] });
  });
  return app;
}
