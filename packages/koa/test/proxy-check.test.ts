import { UNTRUSTED_PROXY_WARNING } from '@tollgate/core';
import { expectOneProxyWarning } from '@tollgate/testing';
import Koa from 'koa';
import request from 'supertest';
import { describe, expect, it, vi } from 'vitest';
import { rateLimit } from '../src/index.js';

function appWith(options: { proxy?: boolean; checkProxy?: boolean }) {
  const logger = { warn: vi.fn(), error: vi.fn() };
  const app = new Koa({ proxy: options.proxy ?? false });
  const checkProxy = options.checkProxy === undefined ? {} : { checkProxy: options.checkProxy };
  app.use(rateLimit({ perMinute: 100, logger, ...checkProxy }));
  app.use((ctx) => {
    ctx.body = 'ok';
  });
  return { server: app.callback(), warn: logger.warn };
}

describe('Koa behind a proxy it does not trust', () => {
  it('warns once when requests carry X-Forwarded-For or Forwarded', async () => {
    const { server, warn } = appWith({});
    await expectOneProxyWarning(server, warn, UNTRUSTED_PROXY_WARNING);
  });

  it('says nothing with app.proxy, or with checkProxy: false', async () => {
    for (const options of [{ proxy: true }, { checkProxy: false }]) {
      const { server, warn } = appWith(options);
      await request(server).get('/').set('Forwarded', 'for=198.51.100.8').set('X-Forwarded-For', '198.51.100.7').expect(200);
      expect(warn).not.toHaveBeenCalled();
    }
  });
});
