import { Body, Controller, Get, HttpCode, Post, Query, Req, UnauthorizedException, UseGuards } from '@nestjs/common';
import { RateLimit, SkipRateLimit } from '@tollgate/nestjs';
import { API_KEYS, ApiKeyGuard, apiKeyOf, isVip } from './api-keys.js';

/** No rule of its own: the module's default rule (5 per minute per client IP) applies. */
@Controller('public')
export class PublicController {
  @Get('hello')
  hello() {
    return { hello: 'world' };
  }
}

@Controller('health')
@SkipRateLimit()
export class HealthController {
  @Get()
  health() {
    return { ok: true };
  }
}

/** Per API key: 5 per minute on the free tier, 20 per minute for VIPs. Without a key, per IP on the free tier. */
@Controller('api')
@UseGuards(ApiKeyGuard)
@RateLimit([
  { name: 'free', perMinute: 5, key: apiKeyOf, skip: isVip },
  { name: 'vip', perMinute: 20, key: apiKeyOf, skip: (req) => !isVip(req) },
])
export class ReportsController {
  @Get('reports')
  reports(@Req() req: { headers: Record<string, string | string[] | undefined> }) {
    const account = API_KEYS[apiKeyOf(req)!]!;
    return { owner: account.owner, tier: account.tier, reports: ['2026-q3', '2026-q4'] };
  }
}

/** Strict: 3 attempts per 15 minutes per IP; successful logins are refunded. */
@Controller('auth')
export class AuthController {
  @Post('login')
  @HttpCode(200)
  @RateLimit({
    name: 'login',
    algorithm: 'fixed-window',
    limit: 3,
    window: '15m',
    skipSuccessfulRequests: true,
    responseType: 'json',
    message: { error: 'too many login attempts, try again later' },
  })
  login(@Body() body: { username?: string; password?: string }) {
    if (body?.username !== 'demo' || body.password !== 'demo-password') throw new UnauthorizedException('wrong username or password');
    return { token: 'demo-token' };
  }
}

/** Two limits at once, all-or-nothing: bursts of 3 refilling at 1 per second, and 30 per hour. */
@Controller('search')
export class SearchController {
  @Get()
  @RateLimit({
    limits: [
      { name: 'burst', qps: 1, burst: 3 },
      { name: 'hourly', perHour: 30 },
    ],
  })
  search(@Query('q') q = '') {
    return { q, results: [] };
  }
}
