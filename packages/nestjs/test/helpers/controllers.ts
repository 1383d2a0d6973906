import { Controller, Get, NotFoundException, Post, UseGuards } from '@nestjs/common';
import { RateLimit, RateLimitGuard, SkipRateLimit } from '../../src/index.js';

/** Two handlers, `a` and `b`, each answering its name: a controller extends it to have two routes under one class rule. */
export class TwoHandlers {
  @Get('a')
  a() {
    return 'a';
  }

  @Get('b')
  b() {
    return 'b';
  }
}

/** Class rule: one budget of 5 per minute shared by its handlers, unless a handler says otherwise. */
@Controller('limited')
@RateLimit({ perMinute: 5 })
export class ClassRuleController extends TwoHandlers {
  @Get('own')
  @RateLimit({ algorithm: 'fixed-window', limit: 2, window: '1m' })
  own() {
    return 'own';
  }

  @Get('free')
  @SkipRateLimit()
  free() {
    return 'free';
  }

  @Get('missing')
  missing() {
    throw new NotFoundException();
  }
}

@Controller('skipped')
@SkipRateLimit()
export class SkippedController {
  @Get()
  all() {
    return 'skipped';
  }

  @Get('but-this')
  @RateLimit({ qps: 1, burst: 2 })
  limited() {
    return 'limited';
  }
}

/** No rule of its own: the module's `defaultRule` applies. */
@Controller('open')
export class DefaultRuleController {
  @Get()
  get() {
    return 'open';
  }

  @Post()
  post() {
    return 'posted';
  }
}

@Controller('multi')
export class MultiLimitController {
  @Get()
  @RateLimit({
    limits: [
      { name: 'burst', qps: 1, burst: 3 },
      { name: 'minute', perMinute: 4 },
    ],
  })
  get() {
    return 'multi';
  }
}

/** Per-route HTTP options: a key from a header, a JSON body, another status. */
@Controller('options')
export class RouteOptionsController {
  @Get('by-key')
  @RateLimit({ perHour: 2, key: (req) => req.headers['x-api-key'] })
  byKey() {
    return 'by-key';
  }

  @Get('json')
  @RateLimit({ perHour: 1, responseType: 'json', message: { error: 'slow down' } })
  json() {
    return 'json';
  }

  @Get('text')
  @RateLimit({ perHour: 1, message: (_req, decision) => `retry in ${Math.ceil(decision.retryAfterMs / 1000)} s`, statusCode: 503 })
  text() {
    return 'text';
  }

  @Get('skip-header')
  @RateLimit({ perHour: 1, skip: (req) => req.headers['x-internal'] === 'yes' })
  skipHeader() {
    return 'skip-header';
  }
}

const isVip = (req: { headers: Record<string, unknown> }) => String(req.headers['x-api-key']).startsWith('vip-');
const apiKey = (req: { headers: Record<string, unknown> }) => req.headers['x-api-key'] as string | undefined;

/** Several rules on one route: a tier each, told apart by `skip`. */
@Controller('tiered')
export class TieredController {
  @Get()
  @RateLimit([
    { name: 'free', perMinute: 2, key: apiKey, skip: isVip },
    { name: 'vip', perMinute: 4, key: apiKey, skip: (req) => !isVip(req) },
  ])
  get() {
    return 'tiered';
  }
}

/** Guarded per controller rather than globally. */
@Controller('guarded')
@UseGuards(RateLimitGuard)
export class GuardedController {
  @Get()
  @RateLimit({ perMinute: 2 })
  get() {
    return 'guarded';
  }

  @Get('default')
  byDefault() {
    return 'default';
  }
}

export const ALL_CONTROLLERS = [
  ClassRuleController,
  SkippedController,
  DefaultRuleController,
  MultiLimitController,
  RouteOptionsController,
  GuardedController,
];
