// The deny cache's effect under an abusive client: one identity hammering a limit of 10 per
// second, with and without the cache, on a real redis-server, in the same run.
// Run: pnpm --filter @tollgate/bench bench:deny-cache
import { createLimiter, type Limiter, RedisStore, type Store, type StoreOperation } from '@tollgate/core';
import { startRedis } from '@tollgate/testing';
import { Redis } from 'ioredis';

const DURATION_MS = Number(process.env.BENCH_DURATION_MS ?? 2000);
const IN_FLIGHT = [1, 64];

/** Counts the operations a limiter sends to the store. */
class CountingStore implements Store {
  operations = 0;
  constructor(private readonly inner: Store) {}
  execute(operation: StoreOperation) {
    this.operations++;
    return this.inner.execute(operation);
  }
}

async function scriptCalls(client: Redis): Promise<number> {
  const stats = await client.info('commandstats');
  return ['fcall', 'evalsha', 'eval'].reduce(
    (sum, name) => sum + Number(new RegExp(`cmdstat_${name}:calls=(\\d+)`).exec(stats)?.[1] ?? 0),
    0,
  );
}

/** `inFlight` loops, each consuming for the abuser as fast as answers come back. */
async function hammer(limiter: Limiter, inFlight: number): Promise<{ decisions: number; allowed: number }> {
  const until = performance.now() + DURATION_MS;
  let decisions = 0;
  let allowed = 0;
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (performance.now() < until) {
        const decision = await limiter.consume('abuser');
        decisions++;
        if (decision.allowed) allowed++;
      }
    }),
  );
  return { decisions, allowed };
}

const target = await startRedis();
const client = new Redis(target.url);
try {
  const rows: string[] = [];
  for (const inFlight of IN_FLIGHT) {
    for (const denyCache of [false, true]) {
      const store = new CountingStore(new RedisStore({ client }));
      const limiter = createLimiter({ qps: 10, burst: 10, store, denyCache, prefix: `bench-${inFlight}-${denyCache}` });
      const callsBefore = await scriptCalls(client);
      const started = performance.now();
      const { decisions, allowed } = await hammer(limiter, inFlight);
      const seconds = (performance.now() - started) / 1000;
      const calls = (await scriptCalls(client)) - callsBefore;
      rows.push(
        `| ${inFlight} | ${denyCache ? 'on' : 'off'} | ${Math.round(decisions / seconds).toLocaleString('en')} | ${allowed} | ` +
          `${store.operations.toLocaleString('en')} | ${calls.toLocaleString('en')} | ${((1 - store.operations / decisions) * 100).toFixed(3)} % |`,
      );
    }
  }
  console.log(`One identity, limit 10/s (burst 10), ${DURATION_MS} ms per row, Node ${process.version}.\n`);
  console.log('| in flight | deny cache | decisions/s | allowed | operations sent to Redis | script calls | decisions without Redis |');
  console.log('|---:|---|---:|---:|---:|---:|---:|');
  for (const row of rows) console.log(row);
} finally {
  await client.quit();
  await target.close();
}
