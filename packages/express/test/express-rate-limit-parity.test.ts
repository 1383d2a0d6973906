import express, { type RequestHandler } from 'express';
import { rateLimit as expressRateLimit } from 'express-rate-limit';
import request from 'supertest';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { rateLimit } from '../src/index.js';
import { RedisLikeSlowStore } from './helpers/slow-store.js';

const START = Date.UTC(2026, 0, 1, 12);

beforeEach(() => {
  // Date only: both limiters read Date.now, the HTTP exchange keeps its real timers.
  vi.useFakeTimers({ toFake: ['Date'], now: START });
});
afterEach(() => vi.useRealTimers());

/** The rate-limit fields of a response, as sent. */
function rateLimitFields(res: request.Response): Record<string, string> {
  return Object.fromEntries(Object.entries(res.headers).filter(([name]) => /^(x-)?ratelimit|^retry-after$/.test(name))) as Record<
    string,
    string
  >;
}

/** Three requests (two 10 s apart, one denied) through `middleware`: the fields of each response. */
async function fieldsThrough(middleware: RequestHandler): Promise<Record<string, string>[]> {
  const app = express();
  app.use(middleware);
  app.get('/', (_req, res) => {
    res.send('ok');
  });
  const seen: Record<string, string>[] = [];
  vi.setSystemTime(START);
  seen.push(rateLimitFields(await request(app).get('/')));
  vi.setSystemTime(START + 10_000);
  seen.push(rateLimitFields(await request(app).get('/')));
  seen.push(rateLimitFields(await request(app).get('/')));
  return seen;
}

describe("headers as express-rate-limit 8's standardHeaders and legacyHeaders write them", () => {
  it.each(['draft-6', 'draft-7', 'draft-8'] as const)('%s, with and without the legacy fields, byte for byte', async (draft) => {
    for (const legacy of [false, true]) {
      const theirs = await fieldsThrough(
        expressRateLimit({ windowMs: 60_000, limit: 2, standardHeaders: draft, legacyHeaders: legacy, identifier: 'default' }),
      );
      const ours = await fieldsThrough(rateLimit({ windowMs: 60_000, limit: 2, headers: legacy ? `${draft}+legacy` : draft }));
      expect(ours).toEqual(theirs);
    }
  });

  it("'legacy' as legacyHeaders alone, and false as neither", async () => {
    const legacy = await fieldsThrough(expressRateLimit({ windowMs: 60_000, limit: 2, standardHeaders: false, legacyHeaders: true }));
    expect(await fieldsThrough(rateLimit({ windowMs: 60_000, limit: 2, headers: 'legacy' }))).toEqual(legacy);
    const none = await fieldsThrough(expressRateLimit({ windowMs: 60_000, limit: 2, standardHeaders: false, legacyHeaders: false }));
    expect(none).toEqual([{}, {}, {}]);
    expect(await fieldsThrough(rateLimit({ windowMs: 60_000, limit: 2, headers: false }))).toEqual(none);
  });
});

describe("express-rate-limit's middleware contract", () => {
  it('req.rateLimit carries limit, used, remaining, resetTime and key beside the decision; requestPropertyName moves it', async () => {
    const app = express();
    app.use(rateLimit({ windowMs: 60_000, limit: 5, key: () => 'user-1' }));
    app.use(rateLimit({ windowMs: 60_000, limit: 3, requestPropertyName: 'perMinute' }));
    app.get('/', (req, res) => {
      const { limit, used, remaining, resetTime, key, allowed } = req.rateLimit;
      const other = (req as unknown as { perMinute: typeof req.rateLimit }).perMinute;
      res.json({ limit, used, remaining, resetTime, key, allowed, other: { limit: other.limit, used: other.used, key: other.key } });
    });
    await request(app).get('/');
    const res = await request(app).get('/');
    expect(res.body).toEqual({
      limit: 5,
      used: 2,
      remaining: 3,
      resetTime: new Date(START + 60_000).toISOString(),
      key: 'user-1',
      allowed: true,
      other: { limit: 3, used: 2, key: expect.stringMatching(/127\.0\.0\.1$/) },
    });
  });

  it('await middleware(req, res, next) resolves after next was called, also when the store answers later', async () => {
    const middleware = rateLimit({ windowMs: 60_000, limit: 5, store: new RedisLikeSlowStore() });
    const next = vi.fn();
    const req = { ip: '10.0.0.1', socket: { remoteAddress: '10.0.0.1' }, rawHeaders: [], headers: {}, method: 'GET', url: '/' };
    const res = { setHeader: vi.fn(), getHeader: () => undefined, once: vi.fn(), closed: false };
    await middleware(req as never, res as never, next);
    expect(next).toHaveBeenCalledWith();
  });

  it('a failing store is passed as a failure mode decision, never an unhandled rejection, and logged once', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    const logger = { warn: vi.fn(), error: vi.fn() };
    try {
      const store = { execute: () => Promise.reject(new Error('store down')) };
      const app = express();
      app.use(rateLimit({ windowMs: 60_000, limit: 1, store, logger, breaker: false }));
      app.get('/', (_req, res) => {
        res.send('ok');
      });
      for (let i = 0; i < 3; i++) await request(app).get('/').expect(200);
      await new Promise((resolve) => setImmediate(resolve));
      expect(unhandled).toEqual([]);
      expect(logger.error).toHaveBeenCalledTimes(1);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });
});

describe("express-rate-limit's resetKey", () => {
  it('lets the client named by its address, or by what key returns, start afresh', async () => {
    const byAddress = rateLimit({ windowMs: 60_000, limit: 1 });
    const byUser = rateLimit({ windowMs: 60_000, limit: 1, key: (req) => req.get('x-user') });
    const app = express();
    app.get('/ip', byAddress, (_req, res) => {
      res.send('ok');
    });
    app.get('/user', byUser, (_req, res) => {
      res.send('ok');
    });
    await request(app).get('/ip').expect(200);
    await request(app).get('/ip').expect(429);
    await byAddress.resetKey('127.0.0.1');
    await request(app).get('/ip').expect(200);
    await request(app).get('/user').set('x-user', 'ann').expect(200);
    await request(app).get('/user').set('x-user', 'ann').expect(429);
    await byUser.resetKey('bob');
    await request(app).get('/user').set('x-user', 'ann').expect(429);
    await byUser.resetKey('ann');
    await request(app).get('/user').set('x-user', 'ann').expect(200);
    await expect(byAddress.resetKey('ann')).rejects.toMatchObject({ code: 'ERR_TOLLGATE_INVALID_KEY' });
  });
});
