import { type CanActivate, type ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { contextExchange } from './context-exchange.js';
import { enforce } from './enforce.js';
import type { RateLimitExchange } from './exchange.js';
import { RateLimitRegistry } from './rate-limit.registry.js';

/**
 * Applies the route's rule: `@RateLimit()` on the handler, else on the controller, else the
 * module's `defaultRule`. Use it globally (`{ provide: APP_GUARD, useClass: RateLimitGuard }`)
 * or per controller (`@UseGuards(RateLimitGuard)`). Guards run in order, global ones first: to
 * key by a user an auth guard sets, use `RateLimitInterceptor` or `@UseGuards(AuthGuard, RateLimitGuard)`.
 * Contexts other than HTTP and GraphQL (WebSocket, microservices) pass unlimited unless a
 * subclass overrides `getExchange`.
 */
@Injectable()
export class RateLimitGuard implements CanActivate {
  constructor(@Inject(RateLimitRegistry) protected readonly registry: RateLimitRegistry) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const rules = this.registry.limitersFor(context.getClass(), context.getHandler());
    if (rules.length === 0) return true;
    const exchange = this.getExchange(context);
    if (exchange === undefined) return true;
    await enforce(rules, exchange, context, this.registry);
    return true;
  }

  /**
   * Translates a Nest execution context into the request the limiter checks and the response it
   * answers. HTTP (Express, Fastify) and GraphQL (a context holding `req`/`res` or
   * `request`/`reply`) are handled; return undefined to leave a context unlimited. Override to
   * limit WebSocket messages or other transports (see the README).
   */
  protected getExchange(context: ExecutionContext): RateLimitExchange | undefined {
    return contextExchange(context);
  }
}
