// A process using a shared concurrency limiter on one Redis. Run by concurrency.test.ts.
//   hammer <url> <prefix> <spec> <loops> <per-loop>: waits for 'go'; `loops` concurrent loops each
//     complete `per-loop` requests (acquire, retry when denied, hold a few ms, release), counting
//     requests in flight in a Redis counter; reports the highest count it saw.
//   hold <url> <prefix> <spec> <count>: takes `count` leases, reports them and never releases.
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { type CreateConcurrencyLimiterOptions, createConcurrencyLimiter, RedisStore } from '../../src/index.js';
import { STORE_SEMANTICS } from '../helpers/stores.js';

const [mode, url, prefix, specJson, ...counts] = process.argv.slice(2);
const client = new Redis(url!);
const limiter = createConcurrencyLimiter({
  ...(JSON.parse(specJson!) as CreateConcurrencyLimiterOptions),
  store: new RedisStore({ client }),
  prefix: prefix!,
  ...STORE_SEMANTICS,
});
const inFlightKey = `${prefix}:in-flight`;

async function loop(requests: number): Promise<number> {
  let highest = 0;
  for (let done = 0; done < requests; ) {
    const decision = await limiter.acquire('shared-key');
    if (!decision.allowed) {
      await sleep(1);
      continue;
    }
    // Counted only between a granted acquire and its release: never more than really held.
    highest = Math.max(highest, await client.incr(inFlightKey));
    await sleep(2 + Math.random() * 6);
    await client.decr(inFlightKey);
    await limiter.release(decision.lease!);
    done++;
  }
  return highest;
}

if (mode === 'hammer') {
  const [loops, perLoop] = counts.map(Number);
  process.send!({ ready: true });
  process.once('message', async () => {
    const highest = await Promise.all(Array.from({ length: loops! }, () => loop(perLoop!)));
    process.send!({ highest: Math.max(...highest) }, () => {
      client.disconnect();
      process.exit(0);
    });
  });
} else {
  const decisions = await Promise.all(Array.from({ length: Number(counts[0]) }, () => limiter.acquire('crash-key')));
  process.send!({ held: decisions.filter((d) => d.allowed).length });
  setInterval(() => {}, 60_000);
}
