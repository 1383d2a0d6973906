import { Inject, Module, type OnApplicationShutdown } from '@nestjs/common';
import { Redis } from 'ioredis';
import { APP_CONFIG, type AppConfig } from './config.js';

export const REDIS_CLIENT = Symbol('redis-client');

/** The Redis connection when `REDIS_URL` is set (undefined otherwise), closed with the app. */
@Module({
  providers: [
    {
      provide: REDIS_CLIENT,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => (config.redisUrl ? new Redis(config.redisUrl) : undefined),
    },
  ],
  exports: [REDIS_CLIENT],
})
export class RedisModule implements OnApplicationShutdown {
  constructor(@Inject(REDIS_CLIENT) private readonly client: Redis | undefined) {}

  async onApplicationShutdown(): Promise<void> {
    await this.client?.quit();
  }
}
