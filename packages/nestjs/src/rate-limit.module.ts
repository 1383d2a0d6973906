import { type DynamicModule, Module, type Provider } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import type { RateLimitModuleAsyncOptions, RateLimitModuleOptions } from './options.js';
import { RateLimitGuard } from './rate-limit.guard.js';
import { RateLimitRegistry } from './rate-limit.registry.js';
import { RATE_LIMIT_OPTIONS } from './tokens.js';

/**
 * Registers the store, the default rule and HTTP options, and provides `RateLimitGuard`.
 * Global: import it once (in the root module) and use the guard anywhere.
 */
@Module({})
// biome-ignore lint/complexity/noStaticOnlyClass: a Nest dynamic module is a class with static factories
export class RateLimitModule {
  static forRoot(options: RateLimitModuleOptions = {}): DynamicModule {
    return RateLimitModule.create([{ provide: RATE_LIMIT_OPTIONS, useValue: options }], []);
  }

  static forRootAsync(options: RateLimitModuleAsyncOptions): DynamicModule {
    const optionsProvider: Provider = { provide: RATE_LIMIT_OPTIONS, useFactory: options.useFactory, inject: options.inject ?? [] };
    return RateLimitModule.create([optionsProvider], options.imports ?? []);
  }

  private static create(providers: Provider[], imports: NonNullable<DynamicModule['imports']>): DynamicModule {
    return {
      module: RateLimitModule,
      global: true,
      imports: [DiscoveryModule, ...imports],
      providers: [...providers, RateLimitRegistry, RateLimitGuard],
      exports: [RATE_LIMIT_OPTIONS, RateLimitRegistry, RateLimitGuard],
    };
  }
}
