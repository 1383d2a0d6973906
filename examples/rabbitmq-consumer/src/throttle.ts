import { createLimiter, type Limiter, type Store, waitAll } from '@tollgate/core';

export interface ThrottleConfig {
  /** Messages per second the whole queue may be processed at, over every consumer process. */
  globalPerSecond: number;
  /** Messages per second for a tenant without a rate of its own. */
  defaultTenantPerSecond: number;
  /** Tenants with their own rate. */
  tenantPerSecond: Readonly<Record<string, number>>;
}

/**
 * Waits until a message of `tenant` may be processed: its tenant's limit and the queue's both
 * admit it at the same moment, and both are taken at once (`waitAll`, one Redis script call), so
 * each rate holds when the work starts. Both limits live in `store` (a RedisStore), so every
 * consumer process shares them. (Waiting for the tenant's turn, then the queue's, would not do:
 * while the queue's backlog drains, a tenant's slots pile up and its messages start in a bunch.)
 */
export function createThrottle(store: Store, prefix: string, config: ThrottleConfig): (tenant: string) => Promise<void> {
  // waitAll starts no message it could not count: while Redis is unreachable it tries again every
  // second, so messages wait (and stay in the queue) instead of flooding the database.
  const limiter = (perSecond: number, name: string): Limiter =>
    createLimiter({ qps: perSecond, burst: 1, store, prefix: `${prefix}:${name}` });
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
    await waitAll([
      { limiter: tenantLimiter(tenant), key: tenant },
      { limiter: queue, key: 'all' },
    ]);
  };
}
