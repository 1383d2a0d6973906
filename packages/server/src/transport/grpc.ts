import * as grpc from '@grpc/grpc-js';
import type { Logger } from '@tollgate/core';
import type { RateLimitRequest, RateLimitResponse } from '../service/messages.js';
import { RequestError } from '../service/request-error.js';
import type { RateLimitService } from '../service/should-rate-limit.js';
import { rateLimitServiceDefinition } from './proto.js';

export interface GrpcHooks {
  /** Told how every call ended: its overall code, or `error`. */
  onCall?: (outcome: 'OK' | 'OVER_LIMIT' | 'error', seconds: number) => void;
  logger: Logger;
}

/** The `ShouldRateLimit` handler: a request the protocol does not allow gets INVALID_ARGUMENT, anything else INTERNAL (and a log line). */
export function grpcImplementation(service: RateLimitService, hooks: GrpcHooks): grpc.UntypedServiceImplementation {
  return {
    ShouldRateLimit(call: grpc.ServerUnaryCall<RateLimitRequest, RateLimitResponse>, callback: grpc.sendUnaryData<RateLimitResponse>) {
      const started = performance.now();
      service.shouldRateLimit(call.request).then(
        (response) => {
          hooks.onCall?.(response.overall_code === 'OVER_LIMIT' ? 'OVER_LIMIT' : 'OK', (performance.now() - started) / 1000);
          callback(null, response);
        },
        (error: unknown) => {
          hooks.onCall?.('error', (performance.now() - started) / 1000);
          if (error instanceof RequestError) return callback({ code: grpc.status.INVALID_ARGUMENT, details: error.message });
          hooks.logger.error('ShouldRateLimit failed', error);
          callback({ code: grpc.status.INTERNAL, details: 'the rate limit service failed; see its log' });
        },
      );
    },
  };
}

/**
 * Channelz (grpc-js's per-call bookkeeping for its debugging service, which this server does not
 * offer) is off: it took about a third of the CPU of a call (bench/server/rls.ts).
 */
const OPTIONS: grpc.ChannelOptions = { 'grpc.enable_channelz': 0 };

/** A gRPC server holding the rate limit service. */
export function createGrpcServer(service: RateLimitService, hooks: GrpcHooks): grpc.Server {
  const server = new grpc.Server(OPTIONS);
  server.addService(rateLimitServiceDefinition(), grpcImplementation(service, hooks));
  return server;
}

/** Binds `server` to `host:port` (0: any free port); resolves to the port. */
export function bindGrpc(server: grpc.Server, host: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.bindAsync(`${host.includes(':') ? `[${host}]` : host}:${port}`, grpc.ServerCredentials.createInsecure(), (error, bound) =>
      error ? reject(error) : resolve(bound),
    );
  });
}

/** A client of Envoy's rate limit service, from the same .proto files (for tests, benchmarks and health probes). */
export function createRateLimitClient(address: string): RateLimitClient {
  const Client = grpc.makeGenericClientConstructor(rateLimitServiceDefinition(), 'RateLimitService');
  const client = new Client(address, grpc.credentials.createInsecure(), OPTIONS) as unknown as RawClient;
  return {
    shouldRateLimit(request, options = {}) {
      return new Promise((resolve, reject) => {
        const deadline = options.deadlineMs === undefined ? Infinity : Date.now() + options.deadlineMs;
        client.ShouldRateLimit(request, new grpc.Metadata(), { deadline }, (error, response) =>
          error ? reject(error) : resolve(response!),
        );
      });
    },
    close: () => client.close(),
  };
}

export interface RateLimitClient {
  shouldRateLimit(request: RateLimitRequest, options?: { deadlineMs?: number }): Promise<RateLimitResponse>;
  close(): void;
}

interface RawClient {
  ShouldRateLimit(
    request: RateLimitRequest,
    metadata: grpc.Metadata,
    options: grpc.CallOptions,
    callback: (error: grpc.ServiceError | null, response?: RateLimitResponse) => void,
  ): void;
  close(): void;
}
