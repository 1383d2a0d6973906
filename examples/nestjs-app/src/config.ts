import { type DynamicModule, Module } from '@nestjs/common';

export interface AppConfig {
  /** Set (`REDIS_URL`): limits live in Redis, shared by every instance. Unset: in memory. */
  redisUrl: string | undefined;
  port: number;
}

export const APP_CONFIG = Symbol('app-config');

export function configFromEnv(env: NodeJS.ProcessEnv = process.env): AppConfig {
  return { redisUrl: env.REDIS_URL || undefined, port: Number(env.PORT ?? 3000) };
}

/** Provides `APP_CONFIG` to every module. */
@Module({})
// biome-ignore lint/complexity/noStaticOnlyClass: a Nest dynamic module is a class with static factories
export class AppConfigModule {
  static with(config: AppConfig): DynamicModule {
    return { module: AppConfigModule, global: true, providers: [{ provide: APP_CONFIG, useValue: config }], exports: [APP_CONFIG] };
  }
}
