import { RedisClusterProcess, type RedisTarget, startRedis } from '@tollgate/testing';
import { type LimiterOptions, MemoryStore, RedisStore, type Store } from '../../src/index.js';
import { type ClientKind, connectClient, connectCluster, SUITE_CLIENT, type TestClient } from './redis-clients.js';

/**
 * Limiter options for tests of what a store decides: every decision comes from the store
 * (no deny cache), a store slowed by a loaded test machine is waited for, and 'closed' makes
 * any store failure show up as a wrong decision rather than an admission.
 */
export const STORE_SEMANTICS: Pick<LimiterOptions, 'timeout' | 'onStoreError' | 'denyCache'> = {
  timeout: 30_000,
  onStoreError: 'closed',
  denyCache: false,
};

/** A store under test and how to release it. */
export interface StoreUnderTest {
  name: 'memory' | 'redis' | 'cluster';
  store: Store;
}

/**
 * Starts the Redis backends a suite compares against the memory store: a fresh
 * single-node `redis-server` (or REDIS_URL) and a 3-master cluster on loopback ports, reached
 * with `client` (default: the one `TOLLGATE_REDIS_CLIENT` names, else ioredis).
 */
export async function startBackends(client: ClientKind = SUITE_CLIENT): Promise<{ stores: StoreUnderTest[]; close: () => Promise<void> }> {
  let single: RedisTarget | undefined;
  let cluster: RedisClusterProcess | undefined;
  const clients: TestClient[] = [];
  try {
    [single, cluster] = await Promise.all([startRedis(), RedisClusterProcess.start(3)]);
    clients.push(await connectClient(client, single.url), await connectCluster(client, cluster.startupNodes));
    return {
      stores: [
        { name: 'memory', store: new MemoryStore() },
        { name: 'redis', store: new RedisStore({ client: clients[0]!.client, time: 'client' }) },
        { name: 'cluster', store: new RedisStore({ client: clients[1]!.client, time: 'client' }) },
      ],
      close: async () => {
        await Promise.all(clients.map((connected) => connected.close()));
        await Promise.all([single?.close(), cluster?.stop()]);
      },
    };
  } catch (error) {
    await Promise.all(clients.map((connected) => connected.close()));
    await Promise.all([single?.close(), cluster?.stop()]);
    throw error;
  }
}
