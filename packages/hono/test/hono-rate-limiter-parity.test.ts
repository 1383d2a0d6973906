// hono-rate-limiter's behavioural tests (src/__tests__/middleware.spec.ts, headers.spec.ts,
// options.spec.ts at 20623ad, just after 0.5.3) for the options @tollgate/hono accepts, each assertion as written
// there; the calls are translated through docs/MIGRATION.md: `keyGenerator` → `key` (their
// helper's `() => ''` is the client address here), `limit` alone → `{ windowMs: 60_000, limit }`
// (their defaults; Tollgate has none), `standardHeaders` → `headers`, vi's fake timers → a virtual
// clock, a MockStore's `increment`/`decrement` calls → what the next request sees. Cases not
// ported are listed in docs/MIGRATION.md.
import { createAdaptorServer } from '@hono/node-server';
import { VirtualClock } from '@tollgate/testing';
import { Hono, type MiddlewareHandler } from 'hono';
import { HTTPException } from 'hono/http-exception';
import request from 'supertest';
import { beforeEach, describe, expect, it } from 'vitest';
import { type RateLimitOptions, rateLimit } from '../src/index.js';

/** Their `createServer`: the middleware, then `/`, `/error` (400) and `POST /crash` (throws a 400). */
function createServer(...middleware: MiddlewareHandler[]) {
  const app = new Hono();
  for (const ware of middleware) app.use(ware);
  return app
    .get('/', (c) => c.text('Hi there!'))
    .get('/error', (c) => c.text('Error!', { status: 400 }))
    .post('/crash', () => {
      throw new HTTPException(400, { message: 'Oops!' });
    });
}

let clock: VirtualClock;
beforeEach(() => {
  clock = new VirtualClock();
});
/** Their `rateLimiter({ keyGenerator, ... })` with their defaults, on the test's clock. */
const rateLimiter = (options: Partial<RateLimitOptions>) =>
  rateLimit({ windowMs: 60_000, limit: 5, clock: clock.now, ...options } as RateLimitOptions);
const serve = (app: Hono) => createAdaptorServer(app);

describe('middleware test', () => {
  it('should not modify the options object passed', () => {
    const options = { windowMs: 60_000, limit: 5 };
    rateLimit(options);
    expect(options).toStrictEqual({ windowMs: 60_000, limit: 5 });
  });

  it('should let the first request through', async () => {
    const app = serve(createServer(rateLimiter({ limit: 1 })));
    await request(app).get('/').expect(200).expect('Hi there!');
  });

  it('should refuse additional connections once IP has reached the max', async () => {
    const app = serve(createServer(rateLimiter({ limit: 2 })));
    await request(app).get('/').expect(200);
    await request(app).get('/').expect(200);
    await request(app).get('/').expect(429);
  });

  it('should (eventually) accept new connections from a blocked IP, and work repeatedly', async () => {
    const app = serve(createServer(rateLimiter({ limit: 2, windowMs: 50 })));
    for (let round = 0; round < 2; round++) {
      await request(app).get('/').expect(200);
      await request(app).get('/').expect(200);
      await request(app).get('/').expect(429);
      clock.advance(60);
    }
    await request(app).get('/').expect(200);
  });

  it('should block all requests if max is set to 0', async () => {
    await request(serve(createServer(rateLimiter({ limit: 0 }))))
      .get('/')
      .expect(429);
  });

  it('should show the provided message instead of the default message when max connections are reached', async () => {
    const message = 'Enhance your calm';
    const app = serve(createServer(rateLimiter({ windowMs: 1000, limit: 2, message })));
    await request(app).get('/').expect(200);
    await request(app).get('/').expect(200);
    await request(app).get('/').expect(429).expect(message);
  });

  it('should allow the error status code to be customized', async () => {
    const app = serve(createServer(rateLimiter({ limit: 1, statusCode: 420 })));
    await request(app).get('/').expect(200);
    await request(app).get('/').expect(420);
  });

  it('should allow responding with a JSON message', async () => {
    const message = { error: { code: 'too-many-requests', message: 'Too many requests were attempted in a short span of time.' } };
    const app = serve(createServer(rateLimiter({ message, limit: 1 })));
    await request(app).get('/').expect(200, 'Hi there!');
    await request(app).get('/').expect(429, message);
  });

  it.each([
    ['a function', () => 'Too many requests.'],
    ['a function that returns a promise', async () => 'Too many requests.'],
  ])('should allow message to be %s', async (_name, message) => {
    const app = serve(createServer(rateLimiter({ message, limit: 1 })));
    await request(app).get('/').expect(200, 'Hi there!');
    await request(app).get('/').expect(429, 'Too many requests.');
  });

  it('should use a custom handler when specified', async () => {
    const handler: RateLimitOptions['handler'] = (c) => {
      c.status(420 as never);
      return c.text('Enhance your calm');
    };
    const app = serve(createServer(rateLimiter({ limit: 1, handler })));
    await request(app).get('/').expect(200);
    await request(app).get('/').expect(420, 'Enhance your calm');
  });

  it('should allow custom key generators', async () => {
    const app = serve(createServer(rateLimiter({ limit: 2, key: (c) => c.req.query('key') ?? '' })));
    await request(app).get('/').query({ key: 1 }).expect(200);
    await request(app).get('/').query({ key: 1 }).expect(200);
    await request(app).get('/').query({ key: 2 }).expect(200);
    await request(app).get('/').query({ key: 1 }).expect(429);
    await request(app).get('/').query({ key: 2 }).expect(200);
    await request(app).get('/').query({ key: 2 }).expect(429);
  });

  it.each([
    ['function', () => true],
    ['function that returns a promise', async () => true],
  ])('should allow custom skip %s', async (_name, skip) => {
    const app = serve(createServer(rateLimiter({ limit: 2, skip })));
    for (let i = 0; i < 3; i++) await request(app).get('/').query({ key: 1 }).expect(200);
  });

  it.each([
    ['a function', () => 2],
    ['a function that returns a promise', async () => 2],
  ])('should allow max to be %s', async (_name, limit) => {
    const app = serve(createServer(rateLimiter({ limit })));
    await request(app).get('/').expect(200);
    await request(app).get('/').expect(200);
    await request(app).get('/').expect(429);
  });

  it('should calculate the remaining hits', async () => {
    const app = serve(createServer(rateLimiter({ limit: async () => 2, headers: 'draft-6' })));
    const response = await request(app).get('/').expect(200).expect('ratelimit-limit', '2').expect('ratelimit-remaining', '1');
    expect('retry-after' in response.headers).toBe(false);
    expect(response.text).toBe('Hi there!');
  });

  it('should count each request and forget a client by resetKey (their store increment and resetKey)', async () => {
    const limiter = rateLimiter({ limit: 1 });
    const app = serve(createServer(limiter));
    await request(app).get('/').expect(200);
    expect((await limiter.limiter.peek('127.0.0.1')).allowed).toBe(false);
    await limiter.resetKey('127.0.0.1');
    await request(app).get('/').expect(200);
  });
});

describe('middleware test: skipSuccessfulRequests and skipFailedRequests (their store decrement, seen by the next request)', () => {
  /** The second request of a client allowed one: 200 when the first was given back, 429 when it still counts. */
  async function secondStatus(options: Partial<RateLimitOptions>, first: (app: ReturnType<typeof serve>) => request.Test) {
    const app = serve(createServer(rateLimiter({ limit: 1, ...options })));
    await first(app);
    return (await request(app).get('/?success=1')).status;
  }

  it.each([
    ['decrement hits when requests succeed', { skipSuccessfulRequests: true }, '/', 200],
    ['not decrement hits when requests fail', { skipSuccessfulRequests: true }, '/error', 429],
    [
      'decrement hits when requests succeed (custom requestWasSuccessful)',
      { skipSuccessfulRequests: true, requestWasSuccessful: (c) => c.res.status === 200 },
      '/',
      200,
    ],
    [
      'not decrement hits when requests fail (custom requestWasSuccessful)',
      { skipSuccessfulRequests: true, requestWasSuccessful: (c) => c.res.status === 200 },
      '/error',
      429,
    ],
    [
      'decrement hits when requests succeed (requestWasSuccessful of the query)',
      { skipSuccessfulRequests: true, requestWasSuccessful: (c) => c.req.query('success') === '1' },
      '/?success=1',
      200,
    ],
    [
      'not decrement hits when requests fail (requestWasSuccessful of the query)',
      { skipSuccessfulRequests: true, requestWasSuccessful: (c) => c.req.query('success') === '1' },
      '/?success=0',
      429,
    ],
    ['decrement hits when requests fail and skipFailedRequests', { skipFailedRequests: true }, '/error', 200],
    ['not decrement hits when requests succeed and skipFailedRequests', { skipFailedRequests: true }, '/', 429],
    [
      'decrement hits when requests fail (async requestWasSuccessful) and skipFailedRequests',
      { skipFailedRequests: true, requestWasSuccessful: async () => false },
      '/',
      200,
    ],
    ['decrement hits when the response is an error and skipFailedRequests', { skipFailedRequests: true }, '/crash', 200],
  ] satisfies [string, Partial<RateLimitOptions>, string, number][])('should %s', async (_name, options, path, expected) => {
    const status = await secondStatus(options, (app) => request(app).get(path));
    expect(status).toBe(expected);
  });

  it('should decrement hits when the handler throws and skipFailedRequests (POST /crash)', async () => {
    expect(await secondStatus({ skipFailedRequests: true }, (app) => request(app).post('/crash').expect(400))).toBe(200);
  });
});

describe('middleware test: errors and the context', () => {
  it.each([
    [
      'the handler',
      {
        limit: 1,
        handler: () => {
          throw new Error('420: Enhance your calm');
        },
      },
      [200, 500],
    ],
    [
      '`skip()`',
      {
        limit: 1,
        skip: () => {
          throw new Error('420: Enhance your calm');
        },
      },
      [500],
    ],
  ] satisfies [string, Partial<RateLimitOptions>, number[]][])(
    'should forward errors in %s to onError',
    async (_name, options, statuses) => {
      let errorCaught = false;
      const app = createServer(rateLimiter(options)).onError((error, c) => {
        errorCaught = true;
        return c.text(error.message, 500);
      });
      for (const status of statuses) await request(serve(app)).get('/').expect(status);
      expect(errorCaught).toEqual(true);
    },
  );

  it.each([['rateLimit'], ['rateLimitInfo']])(
    'should pass the number of hits and the limit to the next request handler in c.get(%s)',
    async (name) => {
      let saved: unknown;
      const app = serve(
        createServer(rateLimiter({ requestPropertyName: name }), async (c, next) => {
          saved = c.get(name as 'rateLimit');
          await next();
        }),
      );
      await request(app).get('/').expect(200);
      expect(saved).toMatchObject({ limit: 5, used: 1, remaining: 4, resetTime: expect.any(Date) });
      saved = undefined;
      await request(app).get('/').expect(200);
      expect(saved).toMatchObject({ limit: 5, used: 2, remaining: 3, resetTime: expect.any(Date) });
    },
  );

  it('should handle two rate-limiters with different `requestPropertyNames` operating independently', async () => {
    let get: ((name: string) => { limit: number; remaining: number } | undefined) | undefined;
    const app = serve(
      createServer(
        async (c, next) => {
          get = (name) => c.get(name as 'rateLimit');
          await next();
        },
        rateLimiter({ limit: 2, requestPropertyName: 'rateLimitKey', key: (c) => c.req.query('key') ?? '' }),
        rateLimiter({ limit: 5, requestPropertyName: 'rateLimitGlobal', key: () => 'global' }),
      ),
    );
    await request(app).get('/').query({ key: 1 }).expect(200);
    expect(get!('rateLimit')).toBeUndefined();
    expect(get!('rateLimitKey')).toMatchObject({ limit: 2, remaining: 1 });
    expect(get!('rateLimitGlobal')).toMatchObject({ limit: 5, remaining: 4 });
    await request(app).get('/').query({ key: 2 }).expect(200);
    expect(get!('rateLimitKey')?.remaining).toEqual(1);
    expect(get!('rateLimitGlobal')?.remaining).toEqual(3);
    await request(app).get('/').query({ key: 1 }).expect(200);
    expect(get!('rateLimitKey')?.remaining).toEqual(0);
    expect(get!('rateLimitGlobal')?.remaining).toEqual(2);
  });
});

describe('headers test', () => {
  it('should send correct `ratelimit-*` headers for the standard headers draft 6', async () => {
    await request(serve(createServer(rateLimiter({ windowMs: 60 * 1000, limit: 5, headers: 'draft-6' }))))
      .get('/')
      .expect('ratelimit-policy', '5;w=60')
      .expect('ratelimit-limit', '5')
      .expect('ratelimit-remaining', '4')
      .expect('ratelimit-reset', '60')
      .expect(200, 'Hi there!');
  });

  it('should send policy and combined ratelimit headers for the standard draft 7', async () => {
    await request(serve(createServer(rateLimiter({ windowMs: 60 * 1000, limit: 5, headers: 'draft-7' }))))
      .get('/')
      .expect('ratelimit-policy', '5;w=60')
      .expect('ratelimit', 'limit=5, remaining=4, reset=60')
      .expect(200, 'Hi there!');
  });

  it('should return the `retry-after` header once IP has reached the max', async () => {
    const app = serve(createServer(rateLimiter({ windowMs: 60 * 1000, limit: 1 })));
    await request(app).get('/').expect(200);
    await request(app).get('/').expect(429).expect('retry-after', '60');
  });
});

describe('options test: what hono-rate-limiter takes under another name is refused, naming the Tollgate option', () => {
  const refusal = (field: string, message: RegExp) =>
    expect.objectContaining({ code: 'ERR_TOLLGATE_INVALID_OPTION', field, message: expect.stringMatching(message) });

  it.each([
    ['keyGenerator', { keyGenerator: () => '' }, /keyGenerator is hono-rate-limiter's: use key \(\(c\) => string \| undefined/],
    ['standardHeaders', { standardHeaders: 'draft-7' }, /standardHeaders is hono-rate-limiter's: use headers/],
    ['requestStorePropertyName', { requestStorePropertyName: 'rateLimitStore' }, /resetKey\(key\) and limiter/],
    ['binding', { binding: { limit: async () => ({ success: true }) } }, /Cloudflare rate limiting binding/],
    [
      'store',
      { store: { increment: () => ({ totalHits: 1 }), decrement() {}, resetKey() {} } },
      /store of hono-rate-limiter: use MemoryStore/,
    ],
  ])('%s', (field, options, message) => {
    expect(() => rateLimit({ windowMs: 60_000, limit: 5, ...options } as never)).toThrow(refusal(field, message));
  });

  it('should not allow the use of an invalid store', () => {
    expect(() => rateLimit({ windowMs: 60_000, limit: 5, store: { invalid: true } } as never)).toThrow(/store/);
  });
});
