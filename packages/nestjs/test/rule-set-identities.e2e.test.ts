import { Controller, Get, type INestApplication } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { TollgateError } from '@tollgate/core';
import request from 'supertest';
import { afterEach, describe, expect, it } from 'vitest';
import { createRuleSet, RateLimitGuard, RateLimitModule, RateLimitRegistry } from '../src/index.js';
import { PLATFORMS, startApp } from './helpers/apps.js';

@Controller()
class AccountController {
  @Get('login')
  login() {
    return 'ok';
  }

  @Get('me')
  me() {
    return 'ok';
  }
}

const guard = { provide: APP_GUARD, useClass: RateLimitGuard };
let app: INestApplication | undefined;
afterEach(() => app?.close());

describe.each(PLATFORMS)('RateLimitRegistry.identitiesOf on %s', (platform) => {
  it("names a client's key in every rule of the module's rule set, to reset it everywhere (as Express's middleware)", async () => {
    const rules = createRuleSet({
      rules: [
        { name: 'login', match: { path: '/login' }, limit: { perMinute: 1 } },
        { name: 'accounts', match: { path: '/me' }, key: 'user', limit: { perMinute: 1 } },
      ],
    });
    const module = RateLimitModule.forRoot({ rules, user: (req) => req.headers['x-user'] });
    app = await startApp(platform, { imports: [module], controllers: [AccountController], providers: [guard] });
    const server = app.getHttpServer();
    for (const path of ['/login', '/me']) {
      await request(server).get(path).set('X-User', 'ann').expect(200);
      await request(server).get(path).set('X-User', 'ann').expect(429);
    }
    const found = app.get(RateLimitRegistry).identitiesOf({ ip: '::ffff:127.0.0.1', user: 'ann' });
    expect(found.map(({ rule, key }) => [rule, key])).toEqual([
      ['login', 'ip:127.0.0.1'],
      ['accounts', 'user:ann'],
    ]);
    for (const { limiter, key } of found) await limiter.reset(key);
    for (const path of ['/login', '/me']) await request(server).get(path).set('X-User', 'ann').expect(200);
  });

  it('refuses with a coded error when the module has no rule set', async () => {
    const module = RateLimitModule.forRoot({ defaultRule: { perMinute: 1 } });
    app = await startApp(platform, { imports: [module], controllers: [AccountController], providers: [guard] });
    const registry = app.get(RateLimitRegistry);
    expect(() => registry.identitiesOf({ ip: '127.0.0.1' })).toThrow(TollgateError);
    expect(() => registry.identitiesOf({ ip: '127.0.0.1' })).toThrow(
      expect.objectContaining({ code: 'ERR_TOLLGATE_INVALID_OPTION', field: 'rules' }),
    );
  });
});
