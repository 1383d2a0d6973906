export { describeBuiltPackage } from './built-package.js';
export { killClientConnections } from './client-kill.js';
export { describeExampleApp, type ExampleAppOptions } from './example-app.js';
export type { BudgetHeaderStyle, ChatRequest, ChatUsage, FakeLlm, FakeLlmCall, FakeLlmOptions } from './fake-llm/index.js';
export { startFakeLlm } from './fake-llm/index.js';
export type {
  AdaptiveAdapter,
  AdaptiveFramework,
  BackendContext,
  ContractAdaptiveLimiter,
  ContractRequestView,
} from './http-contract/index.js';
export {
  contractSpec,
  describeAdaptiveAdapter,
  describeHttpAdapter,
  describeOnBackends,
  structured,
  withContractRequests,
} from './http-contract/index.js';
export type {
  AdapterCapabilities,
  ContractApp,
  ContractDecision,
  ContractFramework,
  ContractHandler,
  ContractLimiter,
  ContractOptions,
  ContractReply,
  ContractRequest,
  ContractRoute,
  ContractRuleSet,
  CoreKit,
  HttpAdapter,
} from './http-contract/types.js';
export type { CurlResponse } from './markdown-sample.js';
export { asCurlShows, headersAsShown, markdownExample, markdownSample } from './markdown-sample.js';
export type { NodeProcessOptions } from './node-process.js';
export { NodeProcess } from './node-process.js';
export type { OptionTypo } from './option-typos.js';
export { ADAPTIVE_TYPOS, expectTypoRefused, failureOf, rateLimitTypos } from './option-typos.js';
export { findFreePort, isPortFree } from './ports.js';
export { expectOneProxyWarning } from './proxy-check.js';
export { itTypesRateLimitOptions } from './rate-limit-types.js';
export { describeReadmeExample } from './readme-example.js';
export type { RedisClusterOptions } from './redis-cluster.js';
export { RedisClusterProcess } from './redis-cluster.js';
export type { RedisProcessOptions, RedisTarget } from './redis-server.js';
export { assertRedisInstalled, RedisProcess, startRedis } from './redis-server.js';
export { httpRulesYaml, RuleFile } from './rule-file.js';
export type { RunTypeScriptOptions } from './run-typescript.js';
export { runTypeScript } from './run-typescript.js';
export { VirtualClock } from './virtual-clock.js';
