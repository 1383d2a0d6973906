import {
  type ArgumentsHost,
  Catch,
  Controller,
  type ExceptionFilter,
  Get,
  HttpException,
  type INestApplication,
  Inject,
  UseFilters,
} from '@nestjs/common';
import { APP_FILTER, APP_GUARD, HttpAdapterHost } from '@nestjs/core';
import { TollgateError } from '@tollgate/core';
import request from 'supertest';
import { afterEach, describe, expect, it } from 'vitest';
import { RateLimit, RateLimitGuard, RateLimitModule, RateLimitRegistry, RateLimitRejectedException } from '../src/index.js';
import { PLATFORMS, type Platform, startApp } from './helpers/apps.js';

@Controller('limited')
class LimitedController {
  @Get()
  @RateLimit({ windowMs: 60_000, limit: 1 })
  get() {
    return 'done';
  }
}

/** The catch-all filter of Nest's documentation: every exception shaped as `{ statusCode, path }` JSON. */
@Catch()
class AllExceptionsFilter implements ExceptionFilter {
  constructor(@Inject(HttpAdapterHost) private readonly adapterHost: HttpAdapterHost) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const { httpAdapter } = this.adapterHost;
    const ctx = host.switchToHttp();
    const statusCode = exception instanceof HttpException ? exception.getStatus() : 500;
    const message = exception instanceof HttpException ? exception.message : 'error';
    httpAdapter.reply(ctx.getResponse(), { statusCode, message, path: httpAdapter.getRequestUrl(ctx.getRequest()) }, statusCode);
  }
}

/** A filter for other exceptions only: a rate-limit rejection is still answered by Tollgate. */
@Catch(TollgateError)
class OtherFilter implements ExceptionFilter {
  catch(): void {
    throw new Error('not reached');
  }
}

@Controller('filtered')
@UseFilters(new OtherFilter())
class FilteredController {
  @Get()
  @RateLimit({ windowMs: 60_000, limit: 1 })
  get() {
    return 'done';
  }
}

let app: INestApplication | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

async function twoRequests(path: string) {
  const server = app!.getHttpServer();
  await request(server).get(path).expect(200);
  return request(server).get(path);
}

describe.each(PLATFORMS)('a rejection through exception filters on %s', (platform: Platform) => {
  it.each(['useGlobalFilters', 'APP_FILTER'] as const)("reaches the app's catch-all filter (%s), which shapes the 429", async (how) => {
    const errors: unknown[] = [];
    app = await startApp(
      platform,
      {
        imports: [RateLimitModule.forRoot({})],
        controllers: [LimitedController],
        providers: [
          { provide: APP_GUARD, useClass: RateLimitGuard },
          ...(how === 'APP_FILTER' ? [{ provide: APP_FILTER, useClass: AllExceptionsFilter }] : []),
        ],
      },
      {
        configure: (nest) => {
          if (how === 'useGlobalFilters') nest.useGlobalFilters(new AllExceptionsFilter(nest.get(HttpAdapterHost)));
          nest.useLogger({ log() {}, warn: (m) => errors.push(m), error: (m) => errors.push(m) });
        },
      },
    );
    const denied = await twoRequests('/limited');
    expect(denied.status).toBe(429);
    expect(denied.body).toEqual({ statusCode: 429, message: 'Too many requests: retry in 60 seconds.', path: '/limited' });
    // The rate-limit fields are on the filter's response.
    expect(denied.headers['retry-after']).toBe('60');
    expect(denied.headers['ratelimit-policy']).toBe('"default";q=1;w=60');
    expect(errors).toEqual([]);
  });

  it('is answered as the options say when no filter of the app catches it: the default output', async () => {
    app = await startApp(platform, {
      imports: [RateLimitModule.forRoot({})],
      controllers: [LimitedController, FilteredController],
      providers: [{ provide: APP_GUARD, useClass: RateLimitGuard }],
    });
    for (const path of ['/limited', '/filtered']) {
      const denied = await twoRequests(path);
      expect(denied.status).toBe(429);
      expect(denied.headers['content-type']).toMatch(/^text\/plain; charset=utf-8/);
      expect(denied.text).toBe('Too many requests: retry in 60 seconds.');
    }
  });

  it("is an HttpException, as @nestjs/throttler's ThrottlerException", () => {
    expect(RateLimitRejectedException.prototype).toBeInstanceOf(HttpException);
  });
});

describe.each(PLATFORMS)('errorMessage on %s', (platform: Platform) => {
  it("gets the execution context and the detail, as @nestjs/throttler's errorMessage", async () => {
    const seen: unknown[] = [];
    @Controller('message')
    class MessageController {
      @Get()
      @RateLimit({ windowMs: 60_000, limit: 2, key: () => 'client-1' })
      handle() {
        return 'done';
      }
    }
    app = await startApp(platform, {
      imports: [
        RateLimitModule.forRoot({
          errorMessage: async (context, detail) => {
            seen.push({ handler: context.getHandler().name, controller: context.getClass().name, ...detail, decision: undefined });
            return `slow down (${detail.totalHits} of ${detail.limit})`;
          },
        }),
      ],
      controllers: [MessageController],
      providers: [{ provide: APP_GUARD, useClass: RateLimitGuard }],
    });
    const server = app.getHttpServer();
    await request(server).get('/message').expect(200);
    await request(server).get('/message').expect(200);
    const denied = await request(server).get('/message').expect(429);
    expect(denied.text).toBe('slow down (3 of 2)');
    expect(seen).toEqual([
      {
        handler: 'handle',
        controller: 'MessageController',
        limit: 2,
        ttl: 60_000,
        key: 'client-1',
        tracker: 'client-1',
        totalHits: 3,
        timeToExpire: 60,
        isBlocked: true,
        timeToBlockExpire: 60,
        decision: undefined,
      },
    ]);
  });
});

describe('options pasted from @nestjs/throttler', () => {
  it('RateLimitModule.forRoot([{ ttl, limit }]) names the module option to write', async () => {
    const boot = startApp('express', { imports: [RateLimitModule.forRoot([{ ttl: 60_000, limit: 10 }] as never)] });
    await expect(boot).rejects.toThrow(
      "RateLimitModule options must be an object, not @nestjs/throttler's list of throttlers: use { defaultRule: { windowMs: 60000, limit: 10 }, budget: 'per-handler' }",
    );
  });

  it('@RateLimit({ default: { limit, ttl } }) names the rule to write', async () => {
    @Controller('named')
    class NamedController {
      @Get()
      @RateLimit({ default: { limit: 3, ttl: 60_000 } } as never)
      handle() {
        return 'done';
      }
    }
    const boot = startApp('express', { imports: [RateLimitModule.forRoot({})], controllers: [NamedController] });
    await expect(boot).rejects.toThrow("default is @nestjs/throttler's named throttler: use { windowMs: 60000, limit: 3 }");
  });
});

describe.each(PLATFORMS)('RateLimitRegistry.resetKey on %s', (platform: Platform) => {
  it("is express-rate-limit's resetKey for every rule: the client named by its address or its key starts afresh", async () => {
    @Controller('reset')
    class ResetController {
      @Get('ip')
      @RateLimit({ windowMs: 60_000, limit: 1 })
      byAddress() {
        return 'done';
      }

      @Get('user')
      @RateLimit({ windowMs: 60_000, limit: 1, key: (req) => req.headers['x-user'] })
      byUser() {
        return 'done';
      }
    }
    app = await startApp(platform, {
      imports: [RateLimitModule.forRoot({})],
      controllers: [ResetController],
      providers: [{ provide: APP_GUARD, useClass: RateLimitGuard }],
    });
    const server = app.getHttpServer();
    const registry = app.get(RateLimitRegistry);
    await request(server).get('/reset/ip').expect(200);
    await request(server).get('/reset/ip').expect(429);
    await request(server).get('/reset/user').set('x-user', 'ann').expect(200);
    await request(server).get('/reset/user').set('x-user', 'ann').expect(429);
    // A user key: the address-keyed rule cannot name a client so, and is passed over.
    await registry.resetKey('ann');
    await request(server).get('/reset/user').set('x-user', 'ann').expect(200);
    await request(server).get('/reset/ip').expect(429);
    await registry.resetKey('127.0.0.1');
    await request(server).get('/reset/ip').expect(200);
  });
});
