import { randomUUID } from 'node:crypto';
import { type Clock, type LimiterOptions, RedisStore } from '@tollgate/core';
import { type RedisTarget, startRedis } from '@tollgate/testing';
import { Redis } from 'ioredis';

/** Where a test app keeps its state: a fresh memory store, or a real redis-server under a prefix of its own. */
export interface Backend {
  name: 'memory' | 'redis';
  options(clock: Clock): LimiterOptions;
}

export async function startBackends(): Promise<{ backends: Backend[]; close: () => Promise<void> }> {
  const target: RedisTarget = await startRedis();
  const client = new Redis(target.url);
  const store = new RedisStore({ client, time: 'client' });
  return {
    backends: [
      { name: 'memory', options: (clock) => ({ clock }) },
      { name: 'redis', options: (clock) => ({ clock, store, prefix: `test-${randomUUID().slice(0, 8)}` }) },
    ],
    close: async () => {
      await client.quit();
      await target.close();
    },
  };
}
