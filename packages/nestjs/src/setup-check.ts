import { Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { ApplicationConfig, Reflector } from '@nestjs/core';
import { RateLimitGuard } from './rate-limit.guard.js';
import { RateLimitInterceptor } from './rate-limit.interceptor.js';
import { type DecoratedRoute, RateLimitRegistry } from './rate-limit.registry.js';

// The metadata keys of `@UseGuards` / `@UseInterceptors` (`@nestjs/common/constants`).
const GUARDS_METADATA = '__guards__';
const INTERCEPTORS_METADATA = '__interceptors__';

/** A class or instance of `RateLimitGuard` / `RateLimitInterceptor` (or a subclass). */
function isEnforcer(value: unknown): boolean {
  const type = typeof value === 'function' ? value : (value as object | undefined)?.constructor;
  if (typeof type !== 'function') return false;
  return [RateLimitGuard, RateLimitInterceptor].some((enforcer) => type === enforcer || type.prototype instanceof enforcer);
}

/**
 * Warns at startup about `@RateLimit()` routes that neither `RateLimitGuard` nor
 * `RateLimitInterceptor` runs on — globally, on the class or on the handler — since nothing
 * would limit them.
 */
@Injectable()
export class RateLimitSetupCheck implements OnApplicationBootstrap {
  private readonly logger = new Logger('RateLimitModule');

  constructor(
    @Inject(RateLimitRegistry) private readonly registry: RateLimitRegistry,
    @Inject(ApplicationConfig) private readonly config: ApplicationConfig,
    @Inject(Reflector) private readonly reflector: Reflector,
  ) {}

  onApplicationBootstrap(): void {
    if (this.enforcedGlobally()) return;
    const missed = this.registry.decoratedRoutes().filter((route) => !this.enforcedOn(route));
    if (missed.length === 0) return;
    const names = missed.map(({ classRef, handler }) => `${classRef.name}.${handler.name}`);
    this.logger.warn(
      `@RateLimit() is on ${names.join(', ')} but neither RateLimitGuard nor RateLimitInterceptor runs there, so nothing is limited: ` +
        'add { provide: APP_GUARD, useClass: RateLimitGuard } (or APP_INTERCEPTOR with RateLimitInterceptor) to the providers of a module, ' +
        'or @UseGuards(RateLimitGuard) to the controllers',
    );
  }

  private enforcedGlobally(): boolean {
    const { config } = this;
    const instances = [...config.getGlobalGuards(), ...config.getGlobalInterceptors()];
    const requestScoped = [...config.getGlobalRequestGuards(), ...config.getGlobalRequestInterceptors()].map((wrapper) => wrapper.metatype);
    return [...instances, ...requestScoped].some(isEnforcer);
  }

  private enforcedOn({ classRef, handler }: DecoratedRoute): boolean {
    return [classRef, handler].some((target) =>
      [GUARDS_METADATA, INTERCEPTORS_METADATA].some((key) => (this.reflector.get<unknown[]>(key, target) ?? []).some(isEnforcer)),
    );
  }
}
