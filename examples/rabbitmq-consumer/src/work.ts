import type { Redis } from 'ioredis';

/**
 * The job a message stands for, done at most once per message id. The work (here: appending to
 * a list) and the mark that it was done commit together in one script; against a database that
 * is one transaction with a unique key on the message id. A message redelivered after a crash
 * finds the mark and is only acked.
 */
const DO_ONCE = `
if redis.call('HSETNX', KEYS[1], ARGV[1], ARGV[2]) == 0 then return 0 end
redis.call('RPUSH', KEYS[2], ARGV[1])
return 1`;

export interface Job {
  id: string;
  tenant: string;
  consumer: string;
}

export interface WorkStore {
  /** Message id → what processed it (JSON of `consumer`, `tenant`, `at`). */
  doneKey: string;
  /** Every execution of the work, in order: one entry per message if none ran twice. */
  effectsKey: string;
}

/** Does the job unless it was done already; true when this call did it. */
export async function doOnce(redis: Redis, keys: WorkStore, job: Job): Promise<boolean> {
  const record = JSON.stringify({ consumer: job.consumer, tenant: job.tenant, at: Date.now() });
  return (await redis.eval(DO_ONCE, 2, keys.doneKey, keys.effectsKey, job.id, record)) === 1;
}
