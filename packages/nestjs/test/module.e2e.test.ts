import { Controller, Get, Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { RedisStore, TollgateError } from '@tollgate/core';
import { type RedisTarget, startRedis, VirtualClock } from '@tollgate/testing';
import { Redis } from 'ioredis';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RateLimit, RateLimitGuard, RateLimitModule, type RateLimitModuleOptions, RateLimitRegistry } from '../src/index.js';
import { PLATFORMS, startApp } from './helpers/apps.js';
import { ClassRuleController, GuardedController, SkippedController } from './helpers/controllers.js';
import { uniquePrefix } from './helpers/stores.js';

let redis: RedisTarget;
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(() => redis.close());

interface AppConfig {
  redisUrl: string | undefined;
  perMinute: number;
  apiKeyHeader: string;
}
const APP_CONFIG = Symbol('app-config');

/** Stands for an app's own configuration module (e.g. @nestjs/config). */
@Module({})
class AppConfigModule {
  static with(config: AppConfig) {
    return { module: AppConfigModule, providers: [{ provide: APP_CONFIG, useValue: config }], exports: [APP_CONFIG] };
  }
}

@Controller('config')
class ConfiguredController {
  @Get()
  get() {
    return 'configured';
  }
}

describe.each(PLATFORMS.flatMap((platform) => [[platform, 'memory'] as const, [platform, 'redis'] as const]))(
  'forRootAsync on %s with the %s store',
  (platform, storeKind) => {
    it('builds the options from an injected configuration', async () => {
      const clients: Redis[] = [];
      const config: AppConfig = { redisUrl: storeKind === 'redis' ? redis.url : undefined, perMinute: 2, apiKeyHeader: 'x-api-key' };
      const app = await startApp(platform, {
        imports: [
          RateLimitModule.forRootAsync({
            imports: [AppConfigModule.with(config)],
            inject: [APP_CONFIG],
            useFactory: async (appConfig: AppConfig): Promise<RateLimitModuleOptions> => {
              const client = appConfig.redisUrl ? new Redis(appConfig.redisUrl) : undefined;
              if (client) clients.push(client);
              return {
                ...(client ? { store: new RedisStore({ client }) } : {}),
                prefix: uniquePrefix(),
                defaultRule: { perMinute: appConfig.perMinute },
                key: (req) => req.headers[appConfig.apiKeyHeader],
              };
            },
          }),
        ],
        controllers: [ConfiguredController],
        providers: [{ provide: APP_GUARD, useClass: RateLimitGuard }],
      });
      try {
        const server = app.getHttpServer();
        const seen = [];
        for (const key of ['k1', 'k1', 'k1', 'k2', 'k2', 'k2'])
          seen.push((await request(server).get('/config').set('x-api-key', key)).status);
        expect(seen).toEqual([200, 200, 429, 200, 200, 429]);
        if (storeKind === 'redis') expect(await clients[0]!.dbsize()).toBeGreaterThanOrEqual(2);
      } finally {
        await app.close();
        for (const client of clients) client.disconnect();
      }
    });
  },
);

describe.each(PLATFORMS)('the module on %s', (platform) => {
  const boot = (controllers: unknown[], options: RateLimitModuleOptions = {}) =>
    startApp(platform, {
      imports: [RateLimitModule.forRoot(options)],
      controllers: controllers as never[],
      providers: [{ provide: APP_GUARD, useClass: RateLimitGuard }],
    });

  it('keeps the headers other middleware set on a 429 (CORS)', async () => {
    const app = await startApp(
      platform,
      {
        imports: [RateLimitModule.forRoot({ defaultRule: { perMinute: 1 } })],
        controllers: [ConfiguredController],
        providers: [{ provide: APP_GUARD, useClass: RateLimitGuard }],
      },
      { configure: (created) => created.enableCors({ origin: 'https://app.example' }) },
    );
    try {
      const server = app.getHttpServer();
      expect((await request(server).get('/config').set('Origin', 'https://app.example')).status).toBe(200);
      const rejected = await request(server).get('/config').set('Origin', 'https://app.example');
      expect(rejected.status).toBe(429);
      expect(rejected.headers['access-control-allow-origin']).toBe('https://app.example');
      expect(rejected.headers['retry-after']).toBe('60');
    } finally {
      await app.close();
    }
  });

  it('builds one limiter per rule, once', async () => {
    const app = await boot([ClassRuleController, SkippedController], { defaultRule: { perMinute: 3 } });
    try {
      const registry = app.get(RateLimitRegistry);
      const { prototype } = ClassRuleController;
      const [shared] = registry.limitersFor(ClassRuleController, prototype.a);
      expect(shared).toBeDefined();
      expect(registry.limitersFor(ClassRuleController, prototype.b)).toEqual([shared]);
      expect(registry.limitersFor(ClassRuleController, prototype.a)[0]).toBe(shared);
      const own = registry.limitersFor(ClassRuleController, prototype.own);
      expect(own).toHaveLength(1);
      expect(own[0]).not.toBe(shared);
      expect(registry.limitersFor(ClassRuleController, prototype.free)).toEqual([]);
      expect(registry.limitersFor(SkippedController, SkippedController.prototype.all)).toEqual([]);
    } finally {
      await app.close();
    }
  });

  it('counts a request once when the guard is both global and on the controller', async () => {
    const app = await boot([GuardedController]);
    try {
      const seen = [];
      for (let i = 0; i < 3; i++) seen.push((await request(app.getHttpServer()).get('/guarded')).status);
      expect(seen).toEqual([200, 200, 429]);
    } finally {
      await app.close();
    }
  });

  it('fails the boot on a bad rule, naming the field', async () => {
    @Controller('bad')
    class BadRuleController {
      @Get()
      @RateLimit({ qps: -1 })
      get() {
        return 'never';
      }
    }
    const error = await boot([BadRuleController]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TollgateError);
    expect(error).toMatchObject({ code: 'ERR_TOLLGATE_INVALID_SPEC', field: 'spec.qps' });
  });

  it('fails the boot when two rules would share a key prefix, and accepts an explicit one', async () => {
    const twin = (path: string, prefix?: string) => {
      @Controller(path)
      @RateLimit({ perMinute: 1, ...(prefix ? { prefix } : {}) })
      class Twin {
        @Get()
        get() {
          return path;
        }
      }
      return Twin;
    };
    const error = await boot([twin('one'), twin('two')]).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'ERR_TOLLGATE_INVALID_OPTION', field: 'prefix' });
    const app = await boot([twin('one'), twin('two', 'tollgate:twin-two')]);
    try {
      const server = app.getHttpServer();
      const seen = [];
      for (const path of ['/one', '/two', '/one', '/two']) seen.push((await request(server).get(path)).status);
      expect(seen).toEqual([200, 200, 429, 429]);
    } finally {
      await app.close();
    }
  });

  it('gives every rule its own identities: the same client has a budget per rule', async () => {
    const clock = new VirtualClock();
    const app = await boot([ClassRuleController], { clock: clock.now });
    try {
      const server = app.getHttpServer();
      const seen = [];
      for (const path of ['/limited/a', '/limited/own', '/limited/own', '/limited/own', '/limited/b']) {
        seen.push((await request(server).get(path)).status);
      }
      expect(seen).toEqual([200, 200, 200, 429, 200]);
    } finally {
      await app.close();
    }
  });
});
