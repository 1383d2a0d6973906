/** Behind a proxy the app does not trust, every client shares the proxy's budget: the module says so once. */
import { Controller, Get, type INestApplication } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { UNTRUSTED_PROXY_WARNING } from '@tollgate/core';
import { VirtualClock } from '@tollgate/testing';
import request from 'supertest';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { RateLimit, RateLimitGuard, RateLimitModule } from '../src/index.js';
import { PLATFORMS, startApp } from './helpers/apps.js';

@Controller('items')
@RateLimit({ perMinute: 100 })
class ItemsController {
  @Get()
  list() {
    return [];
  }
}

describe.each(PLATFORMS)('a request naming its client in a proxy field on %s', (platform) => {
  let app: INestApplication | undefined;
  afterEach(async () => {
    await app?.close();
    vi.restoreAllMocks();
  });

  async function warningsAfter(trustProxy: boolean, checkProxy?: boolean): Promise<unknown[][]> {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const clock = new VirtualClock();
    app = await startApp(
      platform,
      {
        imports: [RateLimitModule.forRoot({ clock: clock.now, ...(checkProxy === undefined ? {} : { checkProxy }) })],
        controllers: [ItemsController],
        providers: [{ provide: APP_GUARD, useClass: RateLimitGuard }],
      },
      { trustProxy },
    );
    const server = app.getHttpServer();
    await request(server).get('/items').expect(200);
    expect(warn).not.toHaveBeenCalled();
    await request(server).get('/items').set('x-forwarded-for', '203.0.113.7').expect(200);
    await request(server).get('/items').set('forwarded', 'for=203.0.113.8').expect(200);
    return warn.mock.calls.filter(([message]) => message === UNTRUSTED_PROXY_WARNING);
  }

  it('warns once when the platform trusts no proxy', async () => {
    expect(await warningsAfter(false)).toHaveLength(1);
  });

  it('says nothing when the platform trusts the proxy', async () => {
    expect(await warningsAfter(true)).toHaveLength(0);
  });

  it('says nothing with checkProxy: false', async () => {
    expect(await warningsAfter(false, false)).toHaveLength(0);
  });
});
