import { RedisClusterProcess, type RedisTarget, startRedis } from '@tollgate/testing';
import { type Cluster, Redis } from 'ioredis';
import { type LimiterOptions, MemoryStore, RedisStore, type Store } from '../../src/index.js';

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
 * single-node `redis-server` (or REDIS_URL) and a 3-master cluster on loopback ports.
 */
export async function startBackends(): Promise<{ stores: StoreUnderTest[]; close: () => Promise<void> }> {
  let single: RedisTarget | undefined;
  let cluster: RedisClusterProcess | undefined;
  const clients: (Redis | Cluster)[] = [];
  try {
    [single, cluster] = await Promise.all([startRedis(), RedisClusterProcess.start(3)]);
    const redis = new Redis(single.url);
    const clusterClient = cluster.client();
    clients.push(redis, clusterClient);
    return {
      stores: [
        { name: 'memory', store: new MemoryStore() },
        { name: 'redis', store: new RedisStore({ client: redis, time: 'client' }) },
        { name: 'cluster', store: new RedisStore({ client: clusterClient, time: 'client' }) },
      ],
      close: async () => {
        await Promise.all(clients.map((client) => client.quit()));
        await Promise.all([single?.close(), cluster?.stop()]);
      },
    };
  } catch (error) {
    for (const client of clients) client.disconnect();
    await Promise.all([single?.close(), cluster?.stop()]);
    throw error;
  }
}
