export { describeBuiltPackage } from './built-package.js';
export { describeExampleApp } from './example-app.js';
export type { BackendContext } from './http-contract/index.js';
export { describeHttpAdapter, describeOnBackends, structured } from './http-contract/index.js';
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
export type { NodeProcessOptions } from './node-process.js';
export { NodeProcess } from './node-process.js';
export { findFreePort, isPortFree } from './ports.js';
export { itTypesRateLimitOptions } from './rate-limit-types.js';
export type { RedisClusterOptions } from './redis-cluster.js';
export { RedisClusterProcess } from './redis-cluster.js';
export type { RedisProcessOptions, RedisTarget } from './redis-server.js';
export { assertRedisInstalled, RedisProcess, startRedis } from './redis-server.js';
export { httpRulesYaml, RuleFile } from './rule-file.js';
export { VirtualClock } from './virtual-clock.js';
