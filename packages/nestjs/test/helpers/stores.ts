import { MemoryStore, RedisStore, type Store } from '@tollgate/core';
import { type RedisTarget, startRedis, type VirtualClock } from '@tollgate/testing';
import { Redis } from 'ioredis';

export type StoreKind = 'memory' | 'redis';
export const STORE_KINDS: StoreKind[] = ['memory', 'redis'];

let counter = 0;
/** A key prefix no other app of this run uses, so apps sharing one Redis never see each other's state. */
export const uniquePrefix = () => `nest${process.pid}-${counter++}`;

/**
 * Limiter options for tests of what a store decides: a slow machine shows up as a failure (a
 * long timeout, then the closed failure mode answering 503), never as a request let through.
 */
export const STORE_SEMANTICS = { timeout: 10_000, onStoreError: 'closed' } as const;

/** One real redis-server for the whole file; a store of either kind on demand. */
export class Stores {
  private target: RedisTarget | undefined;
  private client: Redis | undefined;

  async start(): Promise<void> {
    this.target = await startRedis();
    this.client = new Redis(this.target.url);
  }

  async stop(): Promise<void> {
    await this.client?.quit();
    await this.target?.close();
  }

  /** Either kind decides on the test's virtual clock (for Redis: `time: 'client'` instead of Redis TIME). */
  create(kind: StoreKind, clock: VirtualClock): Store {
    if (kind === 'memory') return new MemoryStore({ clock: clock.now });
    return new RedisStore({ client: this.client!, time: 'client', clock: clock.now });
  }
}
