import type { Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type * as grpc from '@grpc/grpc-js';
import { invalidOption, type Logger, MemoryStore, refuseUnknownFields } from '@tollgate/core';
import { Registry } from 'prom-client';
import { type ConfigSource, configFiles } from './config/config-files.js';
import { isRecord } from './config/errors.js';
import { LiveConfig } from './config/live-config.js';
import { type CompileContext, checkedDefaults, limiterOptions } from './config/rate-limit.js';
import { type ConfigFile, compileConfig } from './config/rate-limit-config.js';
import { combineListeners, loggingListeners } from './limiter-logging.js';
import { infoOf, jsonLogger } from './log.js';
import { createServerMetrics, type ServerMetrics } from './metrics.js';
import { LISTEN_FIELDS, type ListenOptions, SERVER_FIELDS, type ServerOptions } from './options.js';
import { OverrideLimits } from './service/overrides.js';
import { createRateLimitService, type RateLimitService } from './service/should-rate-limit.js';
import { compileCheck } from './transport/check.js';
import { bindGrpc, createGrpcServer } from './transport/grpc.js';
import { addGrpcHealth, type GrpcHealth } from './transport/grpc-health.js';
import { createHttpServer } from './transport/http-server.js';

export interface TollgateServer {
  /** The port gRPC listens on; undefined with `grpc: false`. */
  readonly grpcPort: number | undefined;
  /** The port of health, readiness, metrics and the check; undefined with `http: false`. */
  readonly httpPort: number | undefined;
  /** The service itself, for calls without a transport. */
  readonly service: RateLimitService;
  /** The config in force: `reload()`, and `on('reload' | 'error')`. */
  readonly config: LiveConfig;
  readonly registry: Registry;
  /** True while the server takes calls: not shutting down, and the store reachable. */
  readonly ready: boolean;
  /**
   * Graceful shutdown: readiness turns false, no new calls are taken, calls in flight are
   * answered (cut after `shutdownTimeout`), then the listeners close. The store is left to its owner.
   */
  close(): Promise<void>;
}

/** Starts Tollgate's rate limit service: Envoy's RLS over gRPC and the HTTP side, on the config given. */
export async function createServer(options: ServerOptions): Promise<TollgateServer> {
  checkOptions(options);
  const logger = options.logger ?? jsonLogger();
  const registry = options.registry ?? new Registry();
  const metrics = createServerMetrics(registry);
  const context: CompileContext = {
    store: options.store ?? new MemoryStore(options.clock ? { clock: options.clock } : {}),
    clock: options.clock,
    events: combineListeners(metrics.limiterEvents, loggingListeners(logger)),
    prefix: options.prefix ?? 'tollgate',
  };
  const defaults = checkedDefaults(options.defaults, 'defaults');
  const config = await loadConfig(options, context, defaults, metrics);
  watchConfig(config, options, logger, metrics);
  const service = createRateLimitService({
    config: () => config.current,
    overrides: new OverrideLimits(context, limiterOptions(defaults, 'defaults')),
    headers: options.headers ?? true,
    shadow: options.shadow ?? false,
    onDescriptor: metrics.descriptor,
  });
  return listen(service, config, options, { logger, registry, metrics });
}

async function loadConfig(options: ServerOptions, context: CompileContext, defaults: Record<string, unknown>, metrics: ServerMetrics) {
  const compile = (files: ConfigFile[]) => compileConfig(files, context, { mergeDomains: options.mergeDomains ?? false, defaults });
  const source = sourceOf(options.config);
  try {
    const config =
      source !== undefined
        ? await LiveConfig.load(source, compile)
        : LiveConfig.of([{ name: 'config', document: options.config }], compile);
    metrics.configLoaded('success', config.current.domains.size);
    return config;
  } catch (error) {
    metrics.configLoaded('error');
    throw error;
  }
}

/** The files to read, or undefined for documents given as they are. */
function sourceOf(given: ServerOptions['config']): ConfigSource | undefined {
  if (typeof given === 'string') return configFiles([given]);
  if (Array.isArray(given) && given.length > 0 && given.every((item) => typeof item === 'string')) return configFiles(given);
  if (isRecord(given) && typeof given.read === 'function' && typeof given.watch === 'function') return given as unknown as ConfigSource;
  return undefined;
}

function watchConfig(config: LiveConfig, options: ServerOptions, logger: Logger, metrics: ServerMetrics): void {
  const info = infoOf(logger);
  config.on('reload', ({ domains }) => {
    metrics.configLoaded('success', domains.length);
    info(`config reloaded: domains ${domains.join(', ')}`);
  });
  config.on('error', (error) => {
    metrics.configLoaded('error');
    logger.error('config refused; the last good config stays in force', error);
  });
  if (options.watch ?? true) config.watch(100);
}

interface Shared {
  logger: Logger;
  registry: Registry;
  metrics: ServerMetrics;
}

async function listen(service: RateLimitService, config: LiveConfig, options: ServerOptions, shared: Shared): Promise<TollgateServer> {
  const { logger, registry, metrics } = shared;
  let closing: Promise<void> | undefined;
  const storeReady = options.storeReady ?? (() => true);
  const ready = () => closing === undefined && storeReady();
  const check = options.check === undefined ? undefined : compileCheck(options.check);
  const grpcServer =
    options.grpc === false ? undefined : createGrpcServer(service, { logger, onCall: (code, s) => metrics.call('grpc', code, s) });
  const health = grpcServer === undefined ? undefined : addGrpcHealth(grpcServer, ready);
  const httpServer =
    options.http === false
      ? undefined
      : createHttpServer({ service, check, ready, metrics: registry, logger, onCall: (code, s) => metrics.call('http', code, s) });
  const grpcPort = grpcServer === undefined ? undefined : await bindGrpc(grpcServer, ...address(options.grpc, 8081));
  const httpPort = httpServer === undefined ? undefined : await listenHttp(httpServer, ...address(options.http, 8080));
  infoOf(logger)(
    `listening: gRPC ${grpcPort ?? 'off'}, HTTP ${httpPort ?? 'off'}; domains ${[...config.current.domains.keys()].join(', ')}`,
  );
  const timeoutMs = options.shutdownTimeout ?? 10_000;
  return {
    grpcPort,
    httpPort,
    service,
    config,
    registry,
    get ready() {
      return ready();
    },
    close() {
      closing ??= shutDown({ grpcServer, health, httpServer, config }, timeoutMs);
      return closing;
    },
  };
}

function address(given: ListenOptions | false | undefined, port: number): [string, number] {
  return [(given || undefined)?.host ?? '0.0.0.0', (given || undefined)?.port ?? port];
}

function listenHttp(server: HttpServer, host: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

interface Listeners {
  grpcServer: grpc.Server | undefined;
  health: GrpcHealth | undefined;
  httpServer: HttpServer | undefined;
  config: LiveConfig;
}

async function shutDown({ grpcServer, health, httpServer, config }: Listeners, timeoutMs: number) {
  health?.stop();
  config.close();
  await Promise.all([
    grpcServer === undefined ? undefined : drainGrpc(grpcServer, timeoutMs),
    httpServer === undefined ? undefined : drainHttp(httpServer, timeoutMs),
  ]);
}

function drainGrpc(server: grpc.Server, timeoutMs: number): Promise<void> {
  return new Promise((resolve) => {
    // After a forced shutdown grpc-js may never call tryShutdown's callback (a health Watch stream left open, say).
    const timer = setTimeout(() => {
      server.forceShutdown();
      resolve();
    }, timeoutMs);
    server.tryShutdown(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}

function drainHttp(server: HttpServer, timeoutMs: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => server.closeAllConnections(), timeoutMs);
    server.close(() => {
      clearTimeout(timer);
      resolve();
    });
    server.closeIdleConnections();
  });
}

function checkOptions(options: ServerOptions): void {
  if (!isRecord(options)) throw invalidOption('options', 'must be an object', options);
  refuseUnknownFields(options, SERVER_FIELDS);
  if (options.config === undefined) throw invalidOption('config', 'is required: config file paths or domain documents', undefined);
  for (const field of ['grpc', 'http'] as const) {
    const listen = options[field];
    if (listen === undefined || listen === false) continue;
    if (!isRecord(listen)) throw invalidOption(field, 'must be { host, port } or false', listen);
    refuseUnknownFields(listen, LISTEN_FIELDS, `${field}.`);
    const { port } = listen as ListenOptions;
    if (port !== undefined && !(Number.isInteger(port) && port >= 0 && port <= 65535))
      throw invalidOption(`${field}.port`, 'must be a port from 0 to 65535', port);
  }
  const timeout = options.shutdownTimeout;
  if (timeout !== undefined && !(Number.isFinite(timeout) && timeout >= 0))
    throw invalidOption('shutdownTimeout', 'must be a number of milliseconds >= 0', timeout);
}
