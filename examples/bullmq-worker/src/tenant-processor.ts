import { createLimiter, type Limiter, type Store, TollgateError } from '@tollgate/core';
import { DelayedError, type Job, type Processor } from 'bullmq';

export interface TenantLimitsConfig {
  /** Jobs per second for a tenant without a rate of its own. */
  defaultPerSecond: number;
  /** Tenants with their own rate. */
  perSecond: Readonly<Record<string, number>>;
  /**
   * The longest a job waits for its tenant's turn while holding a worker slot. A job further
   * out goes back to BullMQ's delayed set until its turn, so one tenant over its rate cannot
   * occupy every slot of the worker. Default 2 s.
   */
  maxHoldMs?: number;
}

/** The tenant a job is limited by: `job.data.tenant`, or `unknown`. */
export type TenantOf<T> = (job: Job<T>) => string;

/**
 * Wraps a BullMQ processor so each job first waits for its tenant's turn. BullMQ's own
 * limiter is per queue; this one is per tenant, shared by every worker process through the
 * store (a RedisStore): `limiter.wait` reserves the job's slot in one Redis call.
 */
export function withTenantLimits<T, R>(
  store: Store,
  prefix: string,
  config: TenantLimitsConfig,
  tenantOf: TenantOf<T>,
  process: Processor<T, R>,
): Processor<T, R> {
  const maxHoldMs = config.maxHoldMs ?? 2000;
  const byRate = new Map<number, Limiter>();
  const limiterFor = (tenant: string): Limiter => {
    const rate = config.perSecond[tenant] ?? config.defaultPerSecond;
    let limiter = byRate.get(rate);
    if (limiter === undefined) {
      limiter = createLimiter({ qps: rate, burst: 1, store, prefix: `${prefix}:${rate}`, onStoreError: 'closed', timeout: 1000 });
      byRate.set(rate, limiter);
    }
    return limiter;
  };

  return async (job, token, signal) => {
    const tenant = tenantOf(job);
    try {
      await limiterFor(tenant).wait(tenant, { maxWait: maxHoldMs });
    } catch (error) {
      if (!(error instanceof TollgateError && error.code === 'ERR_TOLLGATE_WAIT_TIMEOUT')) throw error;
      // Too far out: give the worker slot back and come again later (no attempt is used up).
      await job.moveToDelayed(Date.now() + maxHoldMs, token);
      throw new DelayedError();
    }
    return process(job, token, signal);
  };
}
