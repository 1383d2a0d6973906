import { createRuleSet, loadRuleSet, RedisStore, TollgateError } from '@tollgate/core';
import { describeHttpAdapter } from '@tollgate/testing';
import { afterEach } from 'vitest';
import { closeApps, NEST_PLATFORMS, type NestLimit, rateLimit, tooManyHandler } from './serve.js';

afterEach(closeApps);

describeHttpAdapter<NestLimit, RedisStore>({
  kit: { RedisStore, loadRuleSet, createRuleSet, TollgateError },
  rateLimit,
  frameworks: NEST_PLATFORMS,
  tooManyHandler,
  // The module checks a bad `rules` option when the app boots: see rule-set.e2e.test.ts.
  capabilities: { checksOptionsWhenCalled: false },
});
