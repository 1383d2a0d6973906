import { getRequestListener } from '@hono/node-server';
import { UNTRUSTED_PROXY_WARNING } from '@tollgate/core';
import { expectOneProxyWarning } from '@tollgate/testing';
import { Hono } from 'hono';
import request from 'supertest';
import { describe, expect, it, vi } from 'vitest';
import { rateLimit } from '../src/index.js';
import type { TrustProxy } from '../src/options.js';

/** An app behind `rateLimit`, served by @hono/node-server, with its warnings at hand. */
function appWith(options: { trustProxy?: TrustProxy; checkProxy?: boolean }) {
  const logger = { warn: vi.fn(), error: vi.fn() };
  const app = new Hono().use(rateLimit({ perMinute: 100, logger, ...options })).get('/', (c) => c.text('ok'));
  return { listener: getRequestListener(app.fetch), warn: logger.warn };
}

describe('Hono behind a proxy it does not trust', () => {
  it('warns once when requests carry X-Forwarded-For or Forwarded', async () => {
    const { listener, warn } = appWith({});
    await expectOneProxyWarning(listener, warn, UNTRUSTED_PROXY_WARNING);
    expect(UNTRUSTED_PROXY_WARNING).toContain('Hono: rateLimit({ trustProxy: 1 })');
  });

  it('warns for a Forwarded field alone, and with trustProxy: false', async () => {
    const { listener, warn } = appWith({ trustProxy: false });
    await request(listener).get('/').set('Forwarded', 'for=198.51.100.8').expect(200);
    expect(warn.mock.calls).toEqual([[UNTRUSTED_PROXY_WARNING]]);
  });

  it('warns off @hono/node-server too, reading the Request', async () => {
    const logger = { warn: vi.fn(), error: vi.fn() };
    const getConnInfo = () => ({ remote: { address: '127.0.0.1' } });
    const app = new Hono().use(rateLimit({ perMinute: 100, logger, getConnInfo })).get('/', (c) => c.text('ok'));
    expect((await app.request('/')).status).toBe(200);
    expect(logger.warn).not.toHaveBeenCalled();
    expect((await app.request('/', { headers: { forwarded: 'for=198.51.100.8' } })).status).toBe(200);
    expect(logger.warn.mock.calls).toEqual([[UNTRUSTED_PROXY_WARNING]]);
  });

  it('says nothing once trustProxy is set, or with checkProxy: false', async () => {
    for (const options of [{ trustProxy: 1 }, { trustProxy: 'loopback' }, { checkProxy: false }]) {
      const { listener, warn } = appWith(options);
      await request(listener).get('/').set('Forwarded', 'for=198.51.100.8').set('X-Forwarded-For', '198.51.100.7').expect(200);
      expect(warn).not.toHaveBeenCalled();
    }
  });
});
