import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, beforeEach, describe } from 'vitest';
import { startRedis } from '../redis-server.js';
import { VirtualClock } from '../virtual-clock.js';
import type { ContractOptions, CoreKit } from './types.js';

/** Where a test app keeps its state: a fresh memory store, or a real redis-server under a prefix of its own. */
export interface BackendContext {
  name: 'memory' | 'redis';
  /** The clock of the current test (a new one for each). */
  readonly clock: VirtualClock;
  /** Limiter options for the current test: its clock, and on redis the store and a fresh prefix. */
  options(): ContractOptions;
}

/**
 * Runs `body` once on each backend: memory, and a redis-server started for the enclosing
 * describe (`RedisStore` is core's, handed in). Each test gets a new VirtualClock.
 */
export function describeOnBackends<Store>(RedisStore: CoreKit<Store>['RedisStore'], body: (backend: BackendContext) => void): void {
  let client: Redis;
  let store: Store;
  let closeRedis: () => Promise<void>;
  beforeAll(async () => {
    const target = await startRedis();
    closeRedis = target.close;
    client = new Redis(target.url);
    store = new RedisStore({ client, time: 'client' });
  });
  afterAll(async () => {
    await client.quit();
    await closeRedis();
  });

  describe.each(['memory', 'redis'] as const)('on %s', (name) => {
    let clock = new VirtualClock();
    beforeEach(() => {
      clock = new VirtualClock();
    });
    body({
      name,
      get clock() {
        return clock;
      },
      options: () => (name === 'memory' ? { clock: clock.now } : { clock: clock.now, store, prefix: `test-${randomUUID().slice(0, 8)}` }),
    });
  });
}
