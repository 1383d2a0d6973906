import { type CanActivate, type ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { TollgateError } from '@tollgate/core';
import { ClientClosedRequestException, RateLimitRejectedException } from './exceptions.js';
import { httpExchange, type PassVerdict, type RateLimitExchange } from './exchange.js';
import { RateLimitRegistry } from './rate-limit.registry.js';

/**
 * Applies the route's rule: `@RateLimit()` on the handler, else on the controller, else the
 * module's `defaultRule`. Use it globally (`{ provide: APP_GUARD, useClass: RateLimitGuard }`)
 * or per controller (`@UseGuards(RateLimitGuard)`). Contexts other than HTTP and GraphQL
 * (WebSocket, microservices) pass unlimited unless a subclass overrides `getExchange`.
 */
@Injectable()
export class RateLimitGuard implements CanActivate {
  constructor(@Inject(RateLimitRegistry) protected readonly registry: RateLimitRegistry) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const limiters = this.registry.limitersFor(context.getClass(), context.getHandler());
    if (limiters.length === 0) return true;
    const exchange = this.getExchange(context);
    if (exchange === undefined) return true;
    for (const limiter of limiters) {
      if (this.registry.checkedBefore(context.getArgs(), limiter)) continue;
      const verdict = await limiter.check(exchange.info);
      if (verdict.action === 'skip') continue;
      if (verdict.action === 'reject') {
        await exchange.reject(verdict);
        throw new RateLimitRejectedException(verdict);
      }
      await this.pass(exchange, verdict);
    }
    return true;
  }

  /**
   * Sets the headers, settles when the response is done, and holds a shaped request for its
   * delay. The hold is the guard's own (not core's `holdUnlessClosed`): an exchange need not be
   * a Node response, it only reports when it is done.
   */
  private async pass(exchange: RateLimitExchange, verdict: PassVerdict): Promise<void> {
    exchange.setHeaders(verdict.headers);
    if (verdict.delayMs <= 0) {
      exchange.onDone(verdict.settle);
      return;
    }
    let closedEarly = false;
    let wake: (() => void) | undefined;
    exchange.onDone((statusCode) => {
      verdict.settle(statusCode);
      if (statusCode === undefined) {
        closedEarly = true;
        wake?.();
      }
    });
    if (!closedEarly) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, verdict.delayMs);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
    if (closedEarly) throw new ClientClosedRequestException();
  }

  /**
   * Translates a Nest execution context into the request the limiter checks and the response it
   * answers. HTTP (Express, Fastify) and GraphQL (a context holding `req`/`res` or
   * `request`/`reply`) are handled; return undefined to leave a context unlimited. Override to
   * limit WebSocket messages or other transports (see the README).
   */
  protected getExchange(context: ExecutionContext): RateLimitExchange | undefined {
    const type = context.getType<string>();
    if (type === 'http') {
      const http = context.switchToHttp();
      return httpExchange(http.getRequest(), http.getResponse());
    }
    if (type === 'graphql') {
      // biome-ignore lint/suspicious/noExplicitAny: GraphQL contexts are whatever the app builds
      const gql = context.getArgByIndex<Record<string, any> | undefined>(2);
      const req = gql?.req ?? gql?.request;
      const res = gql?.res ?? gql?.reply ?? req?.res;
      if (!req || !res) {
        throw new TollgateError(
          'ERR_TOLLGATE_INVALID_OPTION',
          'the GraphQL context must carry the request and response (`context: ({ req, res }) => ({ req, res })`) for rate limiting',
          'context',
        );
      }
      return httpExchange(req, res, { writeRejection: false });
    }
    return undefined;
  }
}
