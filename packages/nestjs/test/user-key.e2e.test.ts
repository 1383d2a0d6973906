import {
  type CanActivate,
  Controller,
  type ExecutionContext,
  Get,
  type INestApplication,
  Injectable,
  Logger,
  Req,
  UseGuards,
} from '@nestjs/common';
import { APP_GUARD, APP_INTERCEPTOR } from '@nestjs/core';
import { VirtualClock } from '@tollgate/testing';
import request from 'supertest';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createRuleSet, RateLimit, type RateLimitedRequest, RateLimitGuard, RateLimitInterceptor, RateLimitModule } from '../src/index.js';
import { PLATFORMS, startApp } from './helpers/apps.js';

interface AuthedRequest extends RateLimitedRequest {
  headers: Record<string, string | undefined>;
  user?: { id: string };
}

/** Stands for an app's authentication: `req.user` from a bearer token, 401 without one. */
@Injectable()
class AuthGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const req = context.switchToHttp().getRequest<AuthedRequest>();
    const token = req.headers.authorization?.replace(/^Bearer /, '');
    if (!token) return false;
    req.user = { id: token };
    return true;
  }
}

const byUser = (req: AuthedRequest) => req.user?.id;

/** The usual setup: authentication on the controller, rate limiting global (interceptor). */
@Controller('me')
@UseGuards(AuthGuard)
@RateLimit({ perMinute: 2, key: byUser })
class ProfileController {
  @Get()
  get(@Req() req: AuthedRequest) {
    return { user: req.user?.id, remaining: req.rateLimit?.remaining };
  }
}

/** The recipe without a global enforcer: the guard after authentication, on the controller. */
@Controller('orders')
@UseGuards(AuthGuard, RateLimitGuard)
@RateLimit({ perMinute: 2, key: byUser })
class OrdersController {
  @Get()
  get(@Req() req: AuthedRequest) {
    return { user: req.user?.id, remaining: req.rateLimit?.remaining };
  }
}

/** No decorator: limited by the module's rule set, keyed by user. */
@Controller('feed')
@UseGuards(AuthGuard)
class FeedController {
  @Get()
  get() {
    return 'feed';
  }
}

const as = (user: string) => ({ authorization: `Bearer ${user}` });

describe.each(PLATFORMS)('keying by the authenticated user on %s', (platform) => {
  let app: INestApplication;
  afterEach(async () => {
    await app.close();
    vi.restoreAllMocks();
  });

  async function statuses(path: string, headers: Record<string, string>, count: number): Promise<number[]> {
    const seen: number[] = [];
    for (let i = 0; i < count; i++) seen.push((await request(app.getHttpServer()).get(path).set(headers)).status);
    return seen;
  }

  it('gives each user a budget with RateLimitInterceptor as APP_INTERCEPTOR, which runs after the auth guard', async () => {
    const warn = vi.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    const clock = new VirtualClock();
    app = await startApp(platform, {
      imports: [RateLimitModule.forRoot({ clock: clock.now })],
      controllers: [ProfileController],
      providers: [{ provide: APP_INTERCEPTOR, useClass: RateLimitInterceptor }],
    });
    expect(await statuses('/me', as('alice'), 3)).toEqual([200, 200, 429]);
    expect(await statuses('/me', as('bob'), 3)).toEqual([200, 200, 429]);
    // Refused by the auth guard: the interceptor never runs, nothing is counted.
    expect(await statuses('/me', {}, 3)).toEqual([403, 403, 403]);
    expect(warn).not.toHaveBeenCalled();
  });

  it('gives each user a budget with @UseGuards(AuthGuard, RateLimitGuard)', async () => {
    const clock = new VirtualClock();
    app = await startApp(platform, {
      imports: [RateLimitModule.forRoot({ clock: clock.now })],
      controllers: [OrdersController],
    });
    expect(await statuses('/orders', as('alice'), 3)).toEqual([200, 200, 429]);
    expect(await statuses('/orders', as('bob'), 3)).toEqual([200, 200, 429]);
  });

  it('shares one IP budget between users when the guard runs globally, before the auth guard, and warns once', async () => {
    const warn = vi.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    const clock = new VirtualClock();
    app = await startApp(platform, {
      imports: [RateLimitModule.forRoot({ clock: clock.now })],
      controllers: [ProfileController],
      providers: [{ provide: APP_GUARD, useClass: RateLimitGuard }],
    });
    expect(await statuses('/me', as('alice'), 2)).toEqual([200, 200]);
    expect(await statuses('/me', as('bob'), 1)).toEqual([429]);
    // Said once, naming the setups that work.
    expect(warn).toHaveBeenCalledTimes(1);
    expect(warn.mock.calls[0]![0]).toContain('ran before your auth guard');
    expect(warn.mock.calls[0]![0]).toContain('RateLimitInterceptor as APP_INTERCEPTOR');
    expect(warn.mock.calls[0]![0]).toContain('@UseGuards(AuthGuard, RateLimitGuard)');
  });

  it('puts the decision on the request as req.rateLimit', async () => {
    const clock = new VirtualClock();
    app = await startApp(platform, {
      imports: [RateLimitModule.forRoot({ clock: clock.now })],
      controllers: [ProfileController, OrdersController],
      providers: [{ provide: APP_INTERCEPTOR, useClass: RateLimitInterceptor }],
    });
    const server = app.getHttpServer();
    expect((await request(server).get('/me').set(as('carol'))).body).toEqual({ user: 'carol', remaining: 1 });
    expect((await request(server).get('/me').set(as('carol'))).body).toEqual({ user: 'carol', remaining: 0 });
    // Guard and interceptor on one route: the rule counts once.
    expect((await request(server).get('/orders').set(as('carol'))).body).toEqual({ user: 'carol', remaining: 1 });
  });

  it("serves a rule set keyed by user through the module's user option", async () => {
    const clock = new VirtualClock();
    const rules = createRuleSet({ rules: [{ name: 'per-user', key: 'user', limit: { perMinute: 2 } }] }, { clock: clock.now });
    app = await startApp(platform, {
      imports: [RateLimitModule.forRoot({ rules, user: byUser })],
      controllers: [FeedController],
      providers: [{ provide: APP_INTERCEPTOR, useClass: RateLimitInterceptor }],
    });
    expect(await statuses('/feed', as('alice'), 3)).toEqual([200, 200, 429]);
    expect(await statuses('/feed', as('bob'), 3)).toEqual([200, 200, 429]);
  });
});
