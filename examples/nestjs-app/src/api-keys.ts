import { type CanActivate, type ExecutionContext, Injectable, UnauthorizedException } from '@nestjs/common';

export type Tier = 'free' | 'vip';

/** The demo's API keys (a real app reads them from its database). */
export const API_KEYS: Readonly<Record<string, { owner: string; tier: Tier }>> = {
  'demo-free-key': { owner: 'alice', tier: 'free' },
  'demo-vip-key': { owner: 'bob', tier: 'vip' },
};

interface WithHeaders {
  headers: Record<string, string | string[] | undefined>;
}

export function apiKeyOf(req: WithHeaders): string | undefined {
  const key = req.headers['x-api-key'];
  return typeof key === 'string' && key in API_KEYS ? key : undefined;
}

export const isVip = (req: WithHeaders): boolean => API_KEYS[apiKeyOf(req) ?? '']?.tier === 'vip';

/** 401 unless the request carries a known `X-API-Key`. */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    if (apiKeyOf(context.switchToHttp().getRequest<WithHeaders>()) === undefined) {
      throw new UnauthorizedException('send a known X-API-Key');
    }
    return true;
  }
}
