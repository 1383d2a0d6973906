import { fileURLToPath } from 'node:url';
import { type Clock, MemoryStore, RedisStore, type Store } from '@tollgate/core';
import { startRedis, VirtualClock } from '@tollgate/testing';
import { Redis } from 'ioredis';
import { createRateLimitClient, createServer, type RateLimitClient, type ServerOptions, type TollgateServer } from '../../src/index.js';

export const fixture = (path: string) => fileURLToPath(new URL(`../fixtures/${path}`, import.meta.url));

/** A logger keeping its lines, for tests to read. */
export function memoryLogger() {
  const lines: string[] = [];
  return {
    lines,
    info: (message: string) => void lines.push(`info ${message}`),
    warn: (message: string) => void lines.push(`warn ${message}`),
    error: (message: string, error?: unknown) => void lines.push(`error ${message} ${(error as Error | undefined)?.message ?? ''}`),
  };
}

export type Backend = 'memory' | 'redis';

/** A store of each kind on a virtual clock; Redis decides on that clock too (`time: 'client'`). */
export async function storeOn(backend: Backend, clock: Clock): Promise<{ store: Store; close(): Promise<void> }> {
  if (backend === 'memory') return { store: new MemoryStore({ clock }), close: async () => {} };
  const redis = await startRedis();
  const client = new Redis(redis.url);
  return {
    store: new RedisStore({ client, clock }),
    async close() {
      client.disconnect();
      await redis.close();
    },
  };
}

export interface Running {
  server: TollgateServer;
  client: RateLimitClient;
  clock: VirtualClock;
  logger: ReturnType<typeof memoryLogger>;
  close(): Promise<void>;
}

/**
 * A server on `backend` with a virtual clock, gRPC on a free loopback port and no HTTP side
 * unless asked; store calls have 5 s and deny when they fail, so a slow machine shows as a
 * failure, never as an allowed call.
 */
export async function startServer(backend: Backend, options: Omit<ServerOptions, 'store' | 'clock'>): Promise<Running> {
  const clock = new VirtualClock();
  const { store, close } = await storeOn(backend, clock.now);
  const logger = memoryLogger();
  const server = await createServer({
    grpc: { host: '127.0.0.1', port: 0 },
    http: false,
    logger,
    defaults: { timeout: 5000, onStoreError: 'closed' },
    ...options,
    store,
    clock: clock.now,
  });
  const client = createRateLimitClient(`127.0.0.1:${server.grpcPort}`);
  return {
    server,
    client,
    clock,
    logger,
    async close() {
      client.close();
      await server.close();
      await close();
    },
  };
}
