import { type CallHandler, type ExecutionContext, Inject, Injectable, type NestInterceptor } from '@nestjs/common';
import type { Observable } from 'rxjs';
import { contextExchange } from './context-exchange.js';
import { enforce } from './enforce.js';
import type { RateLimitExchange } from './exchange.js';
import { RateLimitRegistry } from './rate-limit.registry.js';

/**
 * The same rules as `RateLimitGuard`, applied as an interceptor: Nest runs interceptors after
 * every guard, so a `key` can read what an auth guard put on the request (`req.user`). Requests
 * a guard refuses (401, 403) are then not counted. Use it globally
 * (`{ provide: APP_INTERCEPTOR, useClass: RateLimitInterceptor }`) or with `@UseInterceptors`.
 */
@Injectable()
export class RateLimitInterceptor implements NestInterceptor {
  constructor(@Inject(RateLimitRegistry) protected readonly registry: RateLimitRegistry) {}

  async intercept(context: ExecutionContext, next: CallHandler): Promise<Observable<unknown>> {
    const rules = this.registry.limitersFor(context.getClass(), context.getHandler());
    const exchange = rules.length === 0 ? undefined : this.getExchange(context);
    if (exchange !== undefined) await enforce(rules, exchange, context, this.registry);
    return next.handle();
  }

  /** As `RateLimitGuard.getExchange`: override to limit other transports. */
  protected getExchange(context: ExecutionContext): RateLimitExchange | undefined {
    return contextExchange(context);
  }
}
