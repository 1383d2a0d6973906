import { MemoryStore, type Store, type StoreOperation, type StoreResult } from '@tollgate/core';

/** A store that answers as the memory store does, a few milliseconds later, as a remote one would. */
export class RedisLikeSlowStore implements Store {
  private readonly memory = new MemoryStore();

  execute(operation: StoreOperation): Promise<StoreResult> {
    return new Promise((resolve) => setTimeout(() => resolve(this.memory.executeSync(operation)), 5));
  }
}
