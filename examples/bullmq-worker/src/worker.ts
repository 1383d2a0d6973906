// A worker process: `REDIS_URL=... QUEUE=emails pnpm start`. Run as many as you like; the
// per-tenant rates hold across all of them.
import { RedisStore } from '@tollgate/core';
import { Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { withTenantLimits } from './tenant-processor.js';

interface EmailJob {
  tenant: string;
  to: string;
}

const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
// BullMQ's blocking commands need maxRetriesPerRequest: null; the limiter gets a client of its own.
const connection = new Redis(redisUrl, { maxRetriesPerRequest: null });
const store = new RedisStore({ client: new Redis(redisUrl) });

const processor = withTenantLimits<EmailJob, string>(
  store,
  'emails:tenant',
  { defaultPerSecond: 10, perSecond: { 'free-tier': 1 } },
  (job) => job.data.tenant,
  async (job) => {
    console.log(`sending to ${job.data.to} for ${job.data.tenant}`);
    return 'sent';
  },
);

const worker = new Worker<EmailJob, string>(process.env.QUEUE ?? 'emails', processor, { connection, concurrency: 50 });
console.log('worker started');
process.once('SIGTERM', async () => {
  await worker.close();
  process.exit(0);
});
