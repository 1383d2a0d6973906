import { describe } from 'vitest';
import { describeOnBackends } from './backends.js';
import { chosenLimitCases } from './chosen-limit-cases.js';
import { eventCases } from './event-cases.js';
import { headerStyleCases } from './header-style-cases.js';
import { heldRequestCases } from './held-request-cases.js';
import { inFlightCases } from './in-flight-cases.js';
import { plainCases, rateLimitCases } from './rate-limit-cases.js';
import { optionTypoCases, ruleSetCases, ruleSetOptionCases } from './rule-set-cases.js';
import type { ContractLimiter, HttpAdapter } from './types.js';

/** `[name, framework]` rows, so describe titles show the bare name. */
const named = <Framework extends { name: string }>(frameworks: Framework[]) =>
  frameworks.map((framework) => [framework.name, framework] as const);

/**
 * The HTTP behaviour every adapter shares, written once: counting and headers, bodies, client
 * addresses, store failures, concurrency leases, refunds, holds settled by the handler, shaping,
 * events and rule files. An adapter's
 * test hands in its `rateLimit`, a `serve` per framework version and the core classes; cases
 * that only one framework has stay beside the adapter.
 */
export function describeHttpAdapter<Limit extends { limiter: ContractLimiter }, Store>(adapter: HttpAdapter<Limit, Store>): void {
  describeOnBackends(adapter.kit.RedisStore, (backend) => {
    describe.each(named(adapter.frameworks))('%s', (_name, framework) => {
      rateLimitCases(adapter, framework, backend);
      describe('header styles', () => headerStyleCases(adapter, framework, backend));
      inFlightCases(adapter, framework, backend);
      describe('requests holding an estimate (cost) and settling what they used', () => heldRequestCases(adapter, framework, backend));
      eventCases(adapter, framework, backend);
      describe('limits chosen per request, a limit of 0, clients named by address or key', () =>
        chosenLimitCases(adapter, framework, backend));
      describe('with a rule file', () => ruleSetCases(adapter, framework, backend));
    });
  });
  describe.each(named(adapter.frameworks))('%s', (_name, framework) => plainCases(adapter, framework));
  if (adapter.capabilities?.checksOptionsWhenCalled === false) return;
  ruleSetOptionCases(adapter);
  optionTypoCases(adapter);
}

export type { AdaptiveAdapter, AdaptiveFramework, ContractAdaptiveLimiter } from './adaptive-cases.js';
export { describeAdaptiveAdapter } from './adaptive-cases.js';
export type { BackendContext } from './backends.js';
export { describeOnBackends } from './backends.js';
export type { ContractRequestView } from './contract-request.js';
export { contractSpec, withContractRequests } from './contract-request.js';
export { structured } from './structured.js';
