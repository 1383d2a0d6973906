import { UNTRUSTED_PROXY_WARNING } from '@tollgate/core';
import Fastify5 from 'fastify';
import Fastify4 from 'fastify4';
import { describe, expect, it, vi } from 'vitest';
import { rateLimit } from '../src/index.js';

describe.each([
  ['Fastify 4', Fastify4 as unknown as typeof Fastify5],
  ['Fastify 5', Fastify5],
] as const)('%s behind a proxy it does not trust', (_name, Fastify) => {
  async function appWith(options: { trustProxy?: boolean | string; checkProxy?: boolean }) {
    const logger = { warn: vi.fn(), error: vi.fn() };
    const app = options.trustProxy === undefined ? Fastify() : Fastify({ trustProxy: options.trustProxy });
    const checkProxy = options.checkProxy === undefined ? {} : { checkProxy: options.checkProxy };
    await app.register(rateLimit, { perMinute: 100, logger, ...checkProxy });
    app.get('/', () => 'ok');
    return { app, warn: logger.warn };
  }

  it('warns once when requests carry X-Forwarded-For or Forwarded', async () => {
    const { app, warn } = await appWith({});
    expect((await app.inject({ url: '/' })).statusCode).toBe(200);
    expect(warn).not.toHaveBeenCalled();
    expect((await app.inject({ url: '/', headers: { 'x-forwarded-for': '198.51.100.7' } })).statusCode).toBe(200);
    expect((await app.inject({ url: '/', headers: { forwarded: 'for=198.51.100.8' } })).statusCode).toBe(200);
    expect(warn.mock.calls).toEqual([[UNTRUSTED_PROXY_WARNING]]);
    expect(UNTRUSTED_PROXY_WARNING).toContain('Fastify: { trustProxy: 1 }');
  });

  it('warns for a Forwarded field alone', async () => {
    const { app, warn } = await appWith({});
    await app.inject({ url: '/', headers: { forwarded: 'for=198.51.100.8' } });
    expect(warn.mock.calls).toEqual([[UNTRUSTED_PROXY_WARNING]]);
  });

  it('says nothing once trustProxy is set, or with checkProxy: false', async () => {
    for (const options of [{ trustProxy: true }, { trustProxy: '127.0.0.1' }, { checkProxy: false }]) {
      const { app, warn } = await appWith(options);
      const headers = { forwarded: 'for=198.51.100.8', 'x-forwarded-for': '198.51.100.7' };
      for (let i = 0; i < 2; i++) expect((await app.inject({ url: '/', headers })).statusCode).toBe(200);
      expect(warn).not.toHaveBeenCalled();
    }
  });
});
