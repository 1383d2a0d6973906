import { Controller, Get, type INestApplication, Post } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { createRuleSet, type RuleSet, TollgateError } from '@tollgate/core';
import { RuleFile, VirtualClock } from '@tollgate/testing';
import { parseList } from 'structured-headers';
import request from 'supertest';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadRuleSet, RateLimit, RateLimitGuard, RateLimitModule, type RateLimitModuleOptions, SkipRateLimit } from '../src/index.js';
import { PLATFORMS, startApp } from './helpers/apps.js';
import { STORE_KINDS, Stores } from './helpers/stores.js';

function structured(value: string | undefined): [unknown, Record<string, unknown>][] {
  return parseList(value ?? '').map(([item, params]) => [item, Object.fromEntries(params)]);
}

/** No decorator: the rule set decides. */
@Controller()
class RoutesController {
  @Post('login')
  login() {
    return 'welcome';
  }

  @Get('login')
  loginPage() {
    return 'form';
  }

  @Get('health')
  health() {
    return 'healthy';
  }

  @Get('search/:term')
  search() {
    return 'found';
  }
}

/** Matched by the `api` rule; the decorators take precedence over it. */
@Controller('api')
class ApiController {
  @Get('data')
  data() {
    return 'data';
  }

  @Get('special')
  @RateLimit({ perHour: 1 })
  special() {
    return 'special';
  }

  @Get('free')
  @SkipRateLimit()
  free() {
    return 'free';
  }
}

const stores = new Stores();
beforeAll(() => stores.start());
afterAll(() => stores.stop());

function boot(platform: (typeof PLATFORMS)[number], options: RateLimitModuleOptions): Promise<INestApplication> {
  return startApp(
    platform,
    {
      imports: [RateLimitModule.forRoot(options)],
      controllers: [RoutesController, ApiController],
      providers: [{ provide: APP_GUARD, useClass: RateLimitGuard }],
    },
    { trustProxy: true },
  );
}

describe.each(PLATFORMS.flatMap((platform) => STORE_KINDS.map((kind) => [platform, kind] as const)))(
  'RateLimitModule.forRoot({ rules }) on %s with the %s store',
  (platform, storeKind) => {
    let clock: VirtualClock;
    let file: RuleFile;
    let rules: RuleSet;
    let app: INestApplication;

    beforeEach(async () => {
      clock = new VirtualClock();
      file = await RuleFile.create();
      rules = await loadRuleSet(file.path, { clock: clock.now, store: stores.create(storeKind, clock), watch: true, debounceMs: 20 });
      app = await boot(platform, { rules, clock: clock.now, store: stores.create(storeKind, clock), prefix: file.prefix });
    });
    afterEach(async () => {
      await app.close();
      rules.close();
      await file.remove();
    });

    it('lets @RateLimit() and @SkipRateLimit() take precedence over the rule a route matches', async () => {
      const server = app.getHttpServer();
      await request(server).get('/api/special').expect(200);
      const special = await request(server).get('/api/special').expect(429);
      expect(structured(special.headers['ratelimit-policy'])).toEqual([['default', { q: 1, w: 3600 }]]);
      for (let i = 0; i < 5; i++) {
        const free = await request(server).get('/api/free').expect(200);
        expect(free.headers.ratelimit).toBeUndefined();
      }
      // Neither spent the api rule's budget.
      for (let i = 0; i < 2; i++) await request(server).get('/api/data').expect(200);
      await request(server).get('/api/data').expect(429);
    });

    it('applies an edited rule file to the next request, and keeps the rules when an edit is broken', async () => {
      const server = app.getHttpServer();
      await request(server).get('/health').expect(200);
      await file.limitHealth(rules);
      await request(server).get('/health').expect(200);
      await request(server).get('/health').expect(429);
      const refused = new Promise<TollgateError>((resolve) => rules.on('error', resolve));
      await file.write('rules: [oops');
      expect(await refused).toBeInstanceOf(TollgateError);
      await request(server).get('/health').expect(429);
      for (let i = 0; i < 3; i++) await request(server).post('/login').expect(201);
      await request(server).post('/login').expect(429);
    });
  },
);

describe('RateLimitModule.forRoot({ rules }) validation', () => {
  const rules = createRuleSet({ rules: [{ name: 'all', limit: { qps: 1 } }] });
  it.each([
    [{ rules: 'rules.yaml' }, 'rules'],
    [{ rules, defaultRule: { qps: 5 } }, 'defaultRule'],
    [{ rules, headers: 'modern' }, 'headers'],
  ])('fails the boot naming the field (%#)', async (options, field) => {
    const error = await boot('express', options as RateLimitModuleOptions).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TollgateError);
    expect(error).toMatchObject({ field });
  });
});
