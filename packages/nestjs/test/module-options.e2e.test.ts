import { Controller, Get, HttpException, type INestApplication, Injectable, Logger, Module, type Type, UseGuards } from '@nestjs/common';
import { APP_GUARD, APP_INTERCEPTOR } from '@nestjs/core';
import { TollgateError } from '@tollgate/core';
import { VirtualClock } from '@tollgate/testing';
import request from 'supertest';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  RateLimit,
  RateLimitGuard,
  type RateLimitHandler,
  RateLimitInterceptor,
  RateLimitModule,
  type RateLimitModuleOptions,
  type RateLimitOptionsFactory,
} from '../src/index.js';
import { PLATFORMS, type Platform, startApp } from './helpers/apps.js';
import { TwoHandlers } from './helpers/controllers.js';
import { parseRateLimitField } from './helpers/fields.js';

@Controller('shared')
@RateLimit({ perMinute: 2 })
class SharedBudgetController extends TwoHandlers {}

@Controller('per-handler')
@RateLimit({ perMinute: 2, budget: 'per-handler' })
class PerHandlerBudgetController extends TwoHandlers {}

@Controller('per-handler-prefixed')
@RateLimit({ perMinute: 1, budget: 'per-handler', prefix: 'articles' })
class PrefixedPerHandlerController extends TwoHandlers {}

@Controller('plain')
class PlainController extends TwoHandlers {}

@Controller('self-guarded')
@UseGuards(RateLimitGuard)
@RateLimit({ perMinute: 2 })
class SelfGuardedController {
  @Get()
  get() {
    return 'self';
  }
}

let app: INestApplication | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
  vi.restoreAllMocks();
});

async function statuses(path: string, count: number): Promise<number[]> {
  const seen: number[] = [];
  for (let i = 0; i < count; i++) seen.push((await request(app!.getHttpServer()).get(path)).status);
  return seen;
}

const withGuard = [{ provide: APP_GUARD, useClass: RateLimitGuard }];

/** Boots `controller` with the global guard, the module deciding on a virtual clock. */
const bootOnVirtualClock = (platform: Platform, controller: Type) =>
  startApp(platform, {
    imports: [RateLimitModule.forRoot({ clock: new VirtualClock().now })],
    controllers: [controller],
    providers: withGuard,
  });

describe.each(PLATFORMS)('budgets on %s', (platform) => {
  it('shares a controller rule between handlers by default, and gives each its own with budget: per-handler', async () => {
    app = await startApp(platform, {
      imports: [RateLimitModule.forRoot({ clock: new VirtualClock().now })],
      controllers: [SharedBudgetController, PerHandlerBudgetController],
      providers: withGuard,
    });
    expect([...(await statuses('/shared/a', 2)), ...(await statuses('/shared/b', 1))]).toEqual([200, 200, 429]);
    expect([...(await statuses('/per-handler/a', 3)), ...(await statuses('/per-handler/b', 3))]).toEqual([200, 200, 429, 200, 200, 429]);
  });

  it('applies the module budget to controller rules and to defaultRule', async () => {
    app = await startApp(platform, {
      imports: [RateLimitModule.forRoot({ clock: new VirtualClock().now, budget: 'per-handler', defaultRule: { perMinute: 1 } })],
      controllers: [SharedBudgetController, PlainController],
      providers: withGuard,
    });
    expect([...(await statuses('/shared/a', 3)), ...(await statuses('/shared/b', 3))]).toEqual([200, 200, 429, 200, 200, 429]);
    expect([...(await statuses('/plain/a', 2)), ...(await statuses('/plain/b', 2))]).toEqual([200, 429, 200, 429]);
  });

  it('gives each handler its own budget under an explicit prefix (as <prefix>.<handler>)', async () => {
    app = await bootOnVirtualClock(platform, PrefixedPerHandlerController);
    expect([...(await statuses('/per-handler-prefixed/a', 2)), ...(await statuses('/per-handler-prefixed/b', 2))]).toEqual([
      200, 429, 200, 429,
    ]);
  });

  it('refuses a budget that is neither shared nor per-handler, naming the field', async () => {
    const boot = startApp(platform, {
      imports: [RateLimitModule.forRoot({ budget: 'per-route' as never })],
      controllers: [SharedBudgetController],
      providers: withGuard,
    });
    await expect(boot).rejects.toMatchObject({ code: 'ERR_TOLLGATE_INVALID_OPTION', field: 'budget' });
  });
});

describe('the startup warning when @RateLimit would do nothing', () => {
  async function warningsOf(platform: Platform, metadata: Parameters<typeof startApp>[1]): Promise<string[]> {
    const warn = vi.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    app = await startApp(platform, metadata);
    return warn.mock.calls.map(([message]) => String(message));
  }

  it.each(PLATFORMS)('names the decorated routes no guard or interceptor covers on %s', async (platform) => {
    const warnings = await warningsOf(platform, {
      imports: [RateLimitModule.forRoot()],
      controllers: [SharedBudgetController, SelfGuardedController, PlainController],
    });
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/SharedBudgetController\.a, SharedBudgetController\.b but neither RateLimitGuard nor RateLimitInterceptor/);
    expect(warnings[0]).not.toMatch(/SelfGuarded|Plain/);
    expect(await statuses('/shared/a', 3)).toEqual([200, 200, 200]);
  });

  it.each([
    ['APP_GUARD', { provide: APP_GUARD, useClass: RateLimitGuard }],
    ['APP_INTERCEPTOR', { provide: APP_INTERCEPTOR, useClass: RateLimitInterceptor }],
  ])('stays quiet with the %s provider', async (_name, provider) => {
    const warnings = await warningsOf('express', {
      imports: [RateLimitModule.forRoot()],
      controllers: [SharedBudgetController],
      providers: [provider],
    });
    expect(warnings).toEqual([]);
  });

  it('stays quiet with a global guard instance', async () => {
    const warn = vi.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    app = await startApp(
      'express',
      { imports: [RateLimitModule.forRoot()], controllers: [SharedBudgetController] },
      {
        configure: (nest) => nest.useGlobalGuards(nest.get(RateLimitGuard)),
      },
    );
    expect(warn).not.toHaveBeenCalled();
    expect(await statuses('/shared/a', 3)).toEqual([200, 200, 429]);
  });
});

const OPTIONS_FROM_CLASS: RateLimitModuleOptions = { defaultRule: { perMinute: 1 } };

@Injectable()
class RateLimitConfig implements RateLimitOptionsFactory {
  createRateLimitOptions(): Promise<RateLimitModuleOptions> {
    return Promise.resolve({ ...OPTIONS_FROM_CLASS, clock: new VirtualClock().now });
  }
}

@Module({ providers: [RateLimitConfig], exports: [RateLimitConfig] })
class RateLimitConfigModule {}

describe.each(PLATFORMS)('forRootAsync with a class on %s', (platform) => {
  it('builds the options with useClass', async () => {
    app = await startApp(platform, {
      imports: [RateLimitModule.forRootAsync({ useClass: RateLimitConfig })],
      controllers: [PlainController],
      providers: withGuard,
    });
    expect(await statuses('/plain/a', 2)).toEqual([200, 429]);
  });

  it('builds the options with useExisting, from an imported provider', async () => {
    app = await startApp(platform, {
      imports: [RateLimitModule.forRootAsync({ imports: [RateLimitConfigModule], useExisting: RateLimitConfig })],
      controllers: [PlainController],
      providers: withGuard,
    });
    expect(await statuses('/plain/a', 2)).toEqual([200, 429]);
  });
});

describe('forRootAsync without exactly one source', () => {
  it.each([{}, { useClass: RateLimitConfig, useFactory: () => ({}) }])('refuses %o', (options) => {
    expect(() => RateLimitModule.forRootAsync(options)).toThrow(TollgateError);
    expect(() => RateLimitModule.forRootAsync(options)).toThrow(/exactly one of them/);
  });
});

/** Writes the 429 through the platform's own response, as a user's handler would. */
const sendTeapot: RateLimitHandler = async (_req, res, verdict) => {
  await Promise.resolve();
  const body = { slowDown: true, retryAfterMs: verdict.decision.retryAfterMs };
  if (typeof res.code === 'function') res.code(429).header('x-handled', 'yes').send(body);
  else res.status(429).set('x-handled', 'yes').json(body);
};

@Controller('handled')
class HandledController {
  @Get()
  @RateLimit({ perMinute: 1, handler: sendTeapot })
  get() {
    return 'ok';
  }

  @Get('thrown')
  @RateLimit({
    perMinute: 1,
    handler: () => {
      throw new HttpException({ custom: 'exception' }, 418);
    },
  })
  thrown() {
    return 'ok';
  }
}

describe.each(PLATFORMS)('handler on %s', (platform) => {
  it('answers rejected requests through the rule handler, async, with the rate-limit headers set', async () => {
    app = await bootOnVirtualClock(platform, HandledController);
    const server = app.getHttpServer();
    expect((await request(server).get('/handled')).status).toBe(200);
    const rejected = await request(server).get('/handled');
    expect(rejected.status).toBe(429);
    expect(rejected.body).toEqual({ slowDown: true, retryAfterMs: 60_000 });
    expect(rejected.headers['x-handled']).toBe('yes');
    expect(rejected.headers['retry-after']).toBe('60');
    expect(rejected.headers.ratelimit).toMatch(/r=0/);
  });

  it('lets Nest render an exception the handler throws', async () => {
    app = await bootOnVirtualClock(platform, HandledController);
    const server = app.getHttpServer();
    expect((await request(server).get('/handled/thrown')).status).toBe(200);
    const rejected = await request(server).get('/handled/thrown');
    expect(rejected.status).toBe(418);
    expect(rejected.body).toEqual({ custom: 'exception' });
  });
});

@Controller('two-rules')
class TwoRulesController {
  @Get()
  @RateLimit([{ windowMs: 60_000, limit: 100 }, { limits: [{ perSecond: 1 }, { perDay: 1000 }] }])
  get() {
    return 'ok';
  }
}

describe.each(PLATFORMS)('several rules on one route on %s', (platform) => {
  it('puts the members of every rule in the RateLimit fields', async () => {
    app = await bootOnVirtualClock(platform, TwoRulesController);
    const passed = await request(app.getHttpServer()).get('/two-rules').expect(200);
    expect(parseRateLimitField(passed.headers['ratelimit-policy'])).toEqual(
      new Map([
        ['default', { q: 100, w: 60 }],
        ['1s', { q: 1, w: 1 }],
        ['1d', { q: 1000, w: 86_400 }],
      ]),
    );
    const denied = await request(app.getHttpServer()).get('/two-rules').expect(429);
    expect([...parseRateLimitField(denied.headers.ratelimit).entries()].map(([name, { r }]) => [name, r])).toEqual([
      ['default', 98],
      ['1s', 0],
      ['1d', 999],
    ]);
  });
});

describe('module options', () => {
  it.each([
    ['defaultRul', { defaultRul: { perMinute: 1 } }, 'defaultRule'],
    ['stroe', { stroe: {} }, 'store'],
    ['bugdet', { bugdet: 'per-handler' }, 'budget'],
    ['skipFailedRequest', { defaultRule: { perMinute: 1 }, skipFailedRequest: true }, 'skipFailedRequests'],
  ])('refuse a misspelt %s at boot, naming it and the option it most likely meant', async (field, options, closest) => {
    const module = RateLimitModule.forRoot(options as RateLimitModuleOptions);
    const boot = startApp('express', { imports: [module], controllers: [PlainController], providers: withGuard });
    await expect(boot).rejects.toBeInstanceOf(TollgateError);
    await expect(boot).rejects.toMatchObject({ code: 'ERR_TOLLGATE_INVALID_OPTION', field });
    await expect(boot).rejects.toThrow(`did you mean ${closest}?`);
  });

  it("refuses @nestjs/throttler's blockDuration as a function of the context at boot: one duration per rule", async () => {
    const blockDuration = (() => 60_000) as never;
    const module = RateLimitModule.forRoot({ defaultRule: { perMinute: 1 }, blockDuration });
    const boot = startApp('express', { imports: [module], controllers: [PlainController], providers: withGuard });
    await expect(boot).rejects.toMatchObject({ code: 'ERR_TOLLGATE_INVALID_OPTION', field: 'blockDuration' });
    await expect(boot).rejects.toThrow('must be one duration, not a function');
  });
});
