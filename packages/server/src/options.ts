import type { Clock, Logger, Store } from '@tollgate/core';
import type { Registry } from 'prom-client';
import type { ConfigSource } from './config/config-files.js';
import type { DescriptorOptions, DomainDocument } from './config/document.js';
import type { CheckOptions } from './transport/check.js';

export interface ListenOptions {
  /** Default `0.0.0.0`. */
  host?: string;
  /** 0: any free port (the server tells which). */
  port?: number;
}

export interface ServerOptions {
  /**
   * The rate limit config: paths of envoyproxy/ratelimit config files (YAML or JSON, one domain
   * each, or a list of domains) and of folders whose every .yaml, .yml and .json file is one; or
   * the domain documents themselves; or a source of config files of your own.
   */
  config: string | string[] | DomainDocument | DomainDocument[] | ConfigSource;
  /** Reload the files when they change, keeping the last good config when a change does not compile. Default true for files. */
  watch?: boolean;
  /** Files naming the same domain add to it instead of being refused. Default false. */
  mergeDomains?: boolean;
  /** Where counts live: a `RedisStore` (any supported client, single node or Cluster) or a `MemoryStore`. Default a new MemoryStore. */
  store?: Store;
  /** Tells readiness whether the store can be reached (e.g. `() => redis.status === 'ready'`). Default: always. */
  storeReady?: () => boolean;
  /** Epoch-millisecond clock of every limiter (tests use a virtual one). */
  clock?: Clock;
  /** Start of every storage key. Default `tollgate`. */
  prefix?: string;
  /** Options every descriptor starts from (a domain's `defaults` and a descriptor's own fields come on top). */
  defaults?: DescriptorOptions;
  /** Envoy's rate limit service over gRPC. Default port 8081; false: none. */
  grpc?: ListenOptions | false;
  /** Health (`/healthz`), readiness (`/readyz`), metrics (`/metrics`) and the check. Default port 8080; false: none. */
  http?: ListenOptions | false;
  /** The HTTP check for nginx `auth_request`, Traefik `ForwardAuth` and HAProxy. Default: none. */
  check?: CheckOptions;
  /** Add RateLimit-Policy, RateLimit and Retry-After to `response_headers_to_add`. Default true. */
  headers?: boolean;
  /** Global shadow mode: decide, count and report, but always answer OK. Default false. */
  shadow?: boolean;
  /** Where metrics are registered. Default: a registry of the server's own. */
  registry?: Registry;
  /**
   * Where the server reports what happens: failures to `error`, and, when the logger has an
   * `info` (console, pino and winston loggers do), its start, reloads and shutdown. Default: JSON lines on standard output.
   */
  logger?: Logger & { info?(message: string): void };
  /** Longest wait for calls in flight on `close()` before their connections are cut. Default 10000 ms. */
  shutdownTimeout?: number;
}

export const SERVER_FIELDS = {
  config: true,
  watch: true,
  mergeDomains: true,
  store: true,
  storeReady: true,
  clock: true,
  prefix: true,
  defaults: true,
  grpc: true,
  http: true,
  check: true,
  headers: true,
  shadow: true,
  registry: true,
  logger: true,
  shutdownTimeout: true,
} as const satisfies Record<keyof ServerOptions, true>;
export const LISTEN_FIELDS = { host: true, port: true } as const satisfies Record<keyof ListenOptions, true>;
