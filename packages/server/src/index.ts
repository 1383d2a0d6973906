export type { ConfigSource } from './config/config-files.js';
export { configFiles } from './config/config-files.js';
export type { DescriptorDocument, DescriptorOptions, DomainDocument, RateLimitDocument } from './config/document.js';
export type { LiveConfig, LiveConfigEvents } from './config/live-config.js';
export type { ConfigFile } from './config/rate-limit-config.js';
export type { ServerLogger } from './log.js';
export { jsonLogger } from './log.js';
export type { ListenOptions, ServerOptions } from './options.js';
export type { TollgateServer } from './server.js';
export { createServer } from './server.js';
export type {
  Code,
  DescriptorStatus,
  Duration,
  HeaderValue,
  RateLimitDescriptor,
  RateLimitEntry,
  RateLimitOverride,
  RateLimitRequest,
  RateLimitResponse,
  RateLimitValue,
  UnitName,
} from './service/messages.js';
export { RequestError } from './service/request-error.js';
export type { RateLimitService } from './service/should-rate-limit.js';
export type { CheckEntry, CheckHeaders, CheckOptions, CheckSource } from './transport/check.js';
export type { RateLimitClient } from './transport/grpc.js';
export { createRateLimitClient } from './transport/grpc.js';
