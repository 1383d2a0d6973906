import { RedisClusterProcess, RedisProcess, startRedis } from '@tollgate/testing';
import { Redis } from 'ioredis';
import { afterAll, beforeAll } from 'vitest';
import type { Store } from '../../src/index.js';
import { type ClientKind, connectClient, connectCluster, type TestClient } from './redis-clients.js';
import { type StoreUnderTest, startBackends } from './stores.js';

/** One redis-server or a 3-master cluster, reached by any client library. */
export interface Topology {
  name: 'one node' | 'cluster';
  connect(kind: ClientKind): Promise<TestClient>;
  /** Every server of it, to read or count on directly. */
  servers(): RedisProcess[];
}

/** Starts a redis-server and a 3-master cluster for the calling test file (stopped after it); both topologies. */
export function startTopologies(): Topology[] {
  let single: RedisProcess;
  let cluster: RedisClusterProcess;
  beforeAll(async () => {
    [single, cluster] = await Promise.all([RedisProcess.start(), RedisClusterProcess.start(3)]);
  });
  afterAll(async () => {
    await Promise.all([single?.stop(), cluster?.stop()]);
  });
  return [
    { name: 'one node', connect: (kind) => connectClient(kind, single.url), servers: () => [single] },
    { name: 'cluster', connect: (kind) => connectCluster(kind, cluster.startupNodes), servers: () => cluster.nodes },
  ];
}

/** Starts the memory, Redis and Cluster stores for the calling test file (closed after it); the store of each name. */
export function useBackends(): (name: StoreUnderTest['name']) => Store {
  let backends: StoreUnderTest[];
  let close: () => Promise<void>;
  beforeAll(async () => {
    ({ stores: backends, close } = await startBackends());
  });
  afterAll(() => close?.());
  return (name) => backends.find((backend) => backend.name === name)!.store;
}

/**
 * A redis-server (or REDIS_URL) for the calling test file (or describe), reached with ioredis:
 * call the returned function inside a test for the client.
 */
export function useRedisClient(): () => Redis {
  let client: Redis;
  let close: () => Promise<void>;
  beforeAll(async () => {
    const target = await startRedis();
    close = target.close;
    client = new Redis(target.url);
  });
  afterAll(async () => {
    await client?.quit();
    await close?.();
  });
  return () => client;
}
