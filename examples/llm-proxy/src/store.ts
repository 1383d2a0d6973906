import { MemoryStore, RedisStore, type Store } from '@tollgate/core';
import { Redis } from 'ioredis';

/** Redis when REDIS_URL is set (every proxy process then shares the budgets), else memory. */
export function createStore(redisUrl = process.env.REDIS_URL): { store: Store; kind: string; close: () => Promise<void> } {
  if (!redisUrl) return { store: new MemoryStore(), kind: 'memory', close: async () => {} };
  const client = new Redis(redisUrl);
  return {
    store: new RedisStore({ client }),
    kind: 'redis',
    close: async () => {
      await client.quit();
    },
  };
}
