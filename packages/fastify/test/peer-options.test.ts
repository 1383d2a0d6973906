import { VirtualClock } from '@tollgate/testing';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { rateLimit, rateLimitHook } from '../src/index.js';

describe("@fastify/rate-limit's options", () => {
  it('takes { max, timeWindow } as the fixed window it is, a duration string parsed as there', async () => {
    const clock = new VirtualClock();
    const app = Fastify();
    await app.register(rateLimit, { max: 2, timeWindow: '1 minute', clock: clock.now });
    app.get('/', () => 'ok');
    expect((await app.inject({ url: '/' })).headers['ratelimit-policy']).toBe('"default";q=2;w=60');
    await app.inject({ url: '/' });
    const denied = await app.inject({ url: '/' });
    expect(denied.statusCode).toBe(429);
    expect(denied.headers['retry-after']).toBe('60');
    clock.advance(60_000);
    expect((await app.inject({ url: '/' })).statusCode).toBe(200);
  });

  it.each([
    [{ max: 5 }, '"default";q=5;w=60'],
    [{ timeWindow: 1000 }, '"default";q=1000;w=1'],
  ])('fills in what is left out as @fastify/rate-limit does (1000 per minute): %o', async (options, policy) => {
    const app = Fastify();
    await app.register(rateLimit, { ...options, clock: new VirtualClock().now });
    app.get('/', () => 'ok');
    expect((await app.inject({ url: '/' })).headers['ratelimit-policy']).toBe(policy);
  });

  it('takes an allowList of addresses', async () => {
    const app = Fastify();
    await app.register(rateLimit, { max: 1, allowList: ['127.0.0.1'] });
    app.get('/', () => 'ok');
    for (let i = 0; i < 3; i++) expect((await app.inject({ url: '/' })).statusCode).toBe(200);
  });

  it.each([
    ['keyGenerator', () => 'k', 'use key'],
    ['errorResponseBuilder', () => ({}), 'use message'],
    ['onExceeding', () => {}, 'use events: { allowed'],
    ['onExceeded', () => {}, 'use events: { denied'],
    ['ban', 3, 'has no equivalent'],
    ['onBanReach', () => {}, 'has no equivalent'],
    ['addHeaders', { 'x-ratelimit-limit': false }, 'use headers'],
    ['addHeadersOnExceeding', { 'x-ratelimit-limit': false }, 'use headers'],
    ['enableDraftSpec', true, 'use headers'],
    ['redis', {}, 'use store: new RedisStore({ client: redis })'],
    ['nameSpace', 'app-', 'use prefix'],
    ['skipOnError', true, "use onStoreError: 'open'"],
    ['cache', 5000, 'has no equivalent'],
    ['continueExceeding', true, 'has no equivalent'],
    ['exponentialBackoff', true, 'has no equivalent'],
    ['groupId', 'g', 'has no equivalent'],
    ['allowList', () => true, 'use skip'],
    ['store', class Store {}, 'use MemoryStore or new RedisStore'],
    ['windowMs', 1000, 'cannot be combined with windowMs'],
  ])('refuses %s, naming what to write instead', (field, value, pointer) => {
    const options = { max: 1, timeWindow: field === 'windowMs' ? 1000 : undefined, [field]: value };
    const expectedField = field === 'windowMs' ? 'timeWindow' : field;
    expect(() => rateLimitHook(options as never)).toThrow(
      expect.objectContaining({ code: 'ERR_TOLLGATE_INVALID_OPTION', field: expectedField }),
    );
    expect(() => rateLimitHook(options as never)).toThrow(pointer);
  });

  it('refuses a timeWindow it cannot read, naming the field', () => {
    expect(() => rateLimitHook({ max: 1, timeWindow: 'soon' } as never)).toThrow(expect.objectContaining({ field: 'timeWindow' }));
  });
});
