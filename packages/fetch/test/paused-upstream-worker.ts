// One of several processes calling one upstream through a throttled fetch on a shared Redis.
// Prints `ready` once connected, fires its callers when the test pushes to `<prefix>:go`, then
// prints `statuses [...]` and exits. Run by paused-upstream.test.ts.
import { createLimiter, RedisStore } from '@tollgate/core';
import { Redis } from 'ioredis';
import { createThrottledFetch } from '../src/index.js';

const [redisUrl, prefix, url, callers, name] = process.argv.slice(2);
const client = new Redis(redisUrl!);
const store = new RedisStore({ client });
const limiter = createLimiter({ qps: 10, burst: 1, store, prefix: `${prefix}:limit` });
const throttled = createThrottledFetch({ limiter, store, prefix: `${prefix}:pause` });

// Connects and loads the script before the test starts the callers.
await limiter.peek('warm-up');
const blocking = client.duplicate();
console.log('ready');
await blocking.blpop(`${prefix}:go`, 0);
const responses = await Promise.all(Array.from({ length: Number(callers) }, () => throttled(url!, { headers: { 'x-worker': name! } })));
console.log(`statuses ${JSON.stringify(responses.map((response) => response.status))}`);
blocking.disconnect();
client.disconnect();
