import { UNTRUSTED_PROXY_WARNING } from '@tollgate/core';
import { expectOneProxyWarning } from '@tollgate/testing';
import express5, { type RequestHandler } from 'express';
import express4 from 'express4';
import request from 'supertest';
import { describe, expect, it, vi } from 'vitest';
import { rateLimit } from '../src/index.js';

const ok: RequestHandler = (_req, res) => {
  res.send('ok');
};

describe.each([
  ['Express 4', express4],
  ['Express 5', express5],
] as const)('%s behind a proxy it does not trust', (_name, express) => {
  function appWith(options: { trustProxy?: number; checkProxy?: boolean }) {
    const logger = { warn: vi.fn(), error: vi.fn() };
    const app = express();
    if (options.trustProxy !== undefined) app.set('trust proxy', options.trustProxy);
    const checkProxy = options.checkProxy === undefined ? {} : { checkProxy: options.checkProxy };
    app.use(rateLimit({ perMinute: 100, logger, ...checkProxy }));
    app.get('/', ok);
    return { app, warn: logger.warn };
  }

  it('warns once when requests carry X-Forwarded-For or Forwarded', async () => {
    const { app, warn } = appWith({});
    await expectOneProxyWarning(app, warn, UNTRUSTED_PROXY_WARNING);
    expect(UNTRUSTED_PROXY_WARNING).toContain("app.set('trust proxy', 1)");
    expect(UNTRUSTED_PROXY_WARNING).toContain('checkProxy: false');
  });

  it('says nothing once trust proxy is set, or with checkProxy: false', async () => {
    for (const options of [{ trustProxy: 1 }, { checkProxy: false }]) {
      const { app, warn } = appWith(options);
      await request(app).get('/').set('Forwarded', 'for=198.51.100.8').set('X-Forwarded-For', '198.51.100.7').expect(200);
      expect(warn).not.toHaveBeenCalled();
    }
  });
});
