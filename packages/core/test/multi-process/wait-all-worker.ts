// One of several consumers of a shared job list on Redis: on 'go' it keeps `prefetch` jobs in
// flight, each started once waitAll admits it under its tenant's limit and the global one, and
// pushes `<tenant> <decided at>` to the starts list; it reports 'done' when the list is empty.
// Run by wait-all.test.ts, which kills one consumer mid-batch.
import { Redis } from 'ioredis';
import { createLimiter, RedisStore, type Store, waitAll } from '../../src/index.js';

const [url, prefix, prefetch] = process.argv.slice(2);
const client = new Redis(url!);
const redisStore = new RedisStore({ client, time: 'client' });
/** Decides every group on this clock reading, and says so: the start times are the decisions' own. */
const store: Store = {
  execute: (operation) => redisStore.execute(operation),
  async executeGroup(operations) {
    const nowMs = Date.now();
    const results = await redisStore.executeGroup(operations.map((operation) => ({ ...operation, nowMs })));
    return results.map((result) => ({ ...result, decidedAtMs: nowMs }));
  },
};
const options = { store, timeout: 30_000, onStoreError: 'closed', denyCache: false } as const;
const perTenant = createLimiter({ qps: 10, burst: 1, prefix: `${prefix}:tenant`, ...options });
const global = createLimiter({ qps: 20, burst: 1, prefix: `${prefix}:queue`, ...options });

async function consume(): Promise<void> {
  for (let job = await client.lpop(`${prefix}:jobs`); job !== null; job = await client.lpop(`${prefix}:jobs`)) {
    const [decision] = await waitAll([
      { limiter: perTenant, key: job },
      { limiter: global, key: 'all' },
    ]);
    await client.rpush(`${prefix}:starts`, `${job} ${decision!.decidedAtMs}`);
  }
}

// Loads the script and connects before the test starts the clock.
await perTenant.peek('warm-up');
process.send!({ ready: true });
process.once('message', async () => {
  await Promise.all(Array.from({ length: Number(prefetch) }, consume));
  process.send!({ done: true }, () => {
    client.disconnect();
    process.exit(0);
  });
});
