import { createLimiter, type Limiter, type Store } from '@tollgate/core';

export interface ThrottleConfig {
  /** Messages per second the whole queue may be processed at, over every consumer process. */
  globalPerSecond: number;
  /** Messages per second for a tenant without a rate of its own. */
  defaultTenantPerSecond: number;
  /** Tenants with their own rate. */
  tenantPerSecond: Readonly<Record<string, number>>;
}

/**
 * Waits until a message of `tenant` may be processed: first its tenant's turn, then the queue's.
 * Both limits live in `store` (a RedisStore), so every consumer process shares them; `wait`
 * reserves each slot in one Redis call, no polling.
 */
export function createThrottle(store: Store, prefix: string, config: ThrottleConfig): (tenant: string) => Promise<void> {
  // 'closed': while Redis is unreachable, messages wait (and stay in the queue) instead of flooding the database.
  const limiter = (perSecond: number, name: string): Limiter =>
    createLimiter({
      qps: perSecond,
      burst: 1,
      store,
      prefix: `${prefix}:${name}`,
      onStoreError: 'closed',
      // A consumer can give Redis longer than an HTTP request could (default 100 ms).
      timeout: 1000,
      events: { storeError: ({ key, reason, error }) => console.error(`limits of ${key}: store ${reason}: ${error.message}`) },
    });
  const queue = limiter(config.globalPerSecond, 'queue');
  const byRate = new Map<number, Limiter>();
  const tenantLimiter = (tenant: string): Limiter => {
    const rate = config.tenantPerSecond[tenant] ?? config.defaultTenantPerSecond;
    let found = byRate.get(rate);
    if (found === undefined) {
      found = limiter(rate, `tenant-${rate}`);
      byRate.set(rate, found);
    }
    return found;
  };
  return async (tenant) => {
    await tenantLimiter(tenant).wait(tenant);
    await queue.wait('all');
  };
}
