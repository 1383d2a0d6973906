import { type DynamicModule, Module, type Provider } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { invalidOption } from '@tollgate/core';
import type { RateLimitModuleAsyncOptions, RateLimitModuleOptions, RateLimitOptionsFactory } from './options.js';
import { RateLimitGuard } from './rate-limit.guard.js';
import { RateLimitInterceptor } from './rate-limit.interceptor.js';
import { RateLimitRegistry } from './rate-limit.registry.js';
import { RateLimitSetupCheck } from './setup-check.js';
import { RATE_LIMIT_OPTIONS } from './tokens.js';

/**
 * Registers the store, the default rule and HTTP options, and provides `RateLimitGuard` and
 * `RateLimitInterceptor`. Global: import it once (in the root module) and use them anywhere.
 */
@Module({})
// biome-ignore lint/complexity/noStaticOnlyClass: a Nest dynamic module is a class with static factories
export class RateLimitModule {
  static forRoot(options: RateLimitModuleOptions = {}): DynamicModule {
    return RateLimitModule.create([{ provide: RATE_LIMIT_OPTIONS, useValue: options }], []);
  }

  static forRootAsync(options: RateLimitModuleAsyncOptions): DynamicModule {
    return RateLimitModule.create(asyncOptionsProviders(options), options.imports ?? []);
  }

  private static create(providers: Provider[], imports: NonNullable<DynamicModule['imports']>): DynamicModule {
    return {
      module: RateLimitModule,
      global: true,
      imports: [DiscoveryModule, ...imports],
      providers: [...providers, RateLimitRegistry, RateLimitGuard, RateLimitInterceptor, RateLimitSetupCheck],
      exports: [RATE_LIMIT_OPTIONS, RateLimitRegistry, RateLimitGuard, RateLimitInterceptor],
    };
  }
}

function asyncOptionsProviders(options: RateLimitModuleAsyncOptions): Provider[] {
  const { useFactory, useClass, useExisting } = options;
  const given = [useFactory, useClass, useExisting].filter((source) => source !== undefined).length;
  if (given !== 1) {
    throw invalidOption('useFactory', `(or useClass, or useExisting): forRootAsync needs exactly one of them, ${given} given`, options);
  }
  if (useFactory !== undefined) return [{ provide: RATE_LIMIT_OPTIONS, useFactory, inject: options.inject ?? [] }];
  const fromFactory = (factory: RateLimitOptionsFactory) => factory.createRateLimitOptions();
  if (useClass !== undefined) {
    return [useClass, { provide: RATE_LIMIT_OPTIONS, useFactory: fromFactory, inject: [useClass] }];
  }
  return [{ provide: RATE_LIMIT_OPTIONS, useFactory: fromFactory, inject: [useExisting!] }];
}
