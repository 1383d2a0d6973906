// One of two workers sharing a RedisStore: waits for 'go', then calls wait() `jobs` times, one
// job after the other, and reports when each job was let go and how many store calls it made.
// Run by wait.test.ts.
import { Redis } from 'ioredis';
import { createLimiter, RedisStore, type Store } from '../../src/index.js';

const [url, prefix, jobs] = process.argv.slice(2);
const client = new Redis(url!);
const redisStore = new RedisStore({ client });
const store = {
  calls: 0,
  execute(operation) {
    this.calls++;
    return redisStore.execute(operation);
  },
} satisfies Store & { calls: number };
const limiter = createLimiter({ qps: 20, burst: 1, store, prefix: prefix!, timeout: 30_000, onStoreError: 'closed' });

// Loads the script and connects before the clock starts; not counted as a job's call.
await limiter.peek('warm-up');
store.calls = 0;
process.send!({ ready: true });
process.once('message', async () => {
  const admittedAt: number[] = [];
  for (let i = 0; i < Number(jobs); i++) {
    await limiter.wait('shared-queue');
    admittedAt.push(Date.now());
  }
  process.send!({ admittedAt, storeCalls: store.calls }, () => {
    client.disconnect();
    process.exit(0);
  });
});
