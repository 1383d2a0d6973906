import { type DynamicModule, Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { RedisStore } from '@tollgate/core';
import { RateLimitGuard, RateLimitModule } from '@tollgate/nestjs';
import type { Redis } from 'ioredis';
import { type AppConfig, AppConfigModule } from './config.js';
import { AuthController, HealthController, PublicController, ReportsController, SearchController } from './controllers.js';
import { REDIS_CLIENT, RedisModule } from './redis.module.js';

@Module({})
// biome-ignore lint/complexity/noStaticOnlyClass: a Nest dynamic module is a class with static factories
export class AppModule {
  static with(config: AppConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        AppConfigModule.with(config),
        RateLimitModule.forRootAsync({
          imports: [RedisModule],
          inject: [REDIS_CLIENT],
          useFactory: (client: Redis | undefined) => ({
            // Memory by default; Redis (shared by every instance) when REDIS_URL is set.
            ...(client ? { store: new RedisStore({ client }) } : {}),
            prefix: 'example',
            // Every route without a rule of its own: 5 per minute per client IP.
            defaultRule: { perMinute: 5 },
          }),
        }),
      ],
      controllers: [PublicController, HealthController, ReportsController, AuthController, SearchController],
      providers: [{ provide: APP_GUARD, useClass: RateLimitGuard }],
    };
  }
}
