import { Controller, Get, type INestApplication } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { createRuleSet, TollgateError } from '@tollgate/core';
import { expectTypoRefused, failureOf, rateLimitTypos } from '@tollgate/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { RateLimit, RateLimitGuard, RateLimitModule } from '../src/index.js';
import { startApp } from './helpers/apps.js';

const ruleSet = createRuleSet({ rules: [{ name: 'all', limit: { qps: 1 } }] });

/** Boots an app with `options`: a rule set's in the module, a rule's on a route. */
function boot(options: Record<string, unknown>): Promise<INestApplication> {
  @Controller()
  class TypoController {
    @Get()
    @RateLimit(('rules' in options ? {} : options) as never)
    get() {
      return 'ok';
    }
  }
  const module = 'rules' in options ? RateLimitModule.forRoot(options as never) : RateLimitModule.forRoot({});
  return startApp('express', {
    imports: [module],
    controllers: [TypoController],
    providers: [{ provide: APP_GUARD, useClass: RateLimitGuard }],
  });
}

let app: INestApplication | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

describe('a misspelt option of a rule or the module', () => {
  it.each(rateLimitTypos(ruleSet))(
    'is refused at boot, named with the option it most likely meant: %s',
    async (_what, options, field, closest) => {
      const error = await failureOf(async () => {
        app = await boot(options);
      });
      expect(error).toBeInstanceOf(TollgateError);
      expectTypoRefused(error, field, closest);
    },
  );
});
