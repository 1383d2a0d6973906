// One of two processes calling one upstream through a throttled fetch on a shared Redis. On
// 'call' it fetches the URL once and reports the status; it reports a pause when it learns one.
// Run by two-processes.test.ts.
import { createLimiter, RedisStore } from '@tollgate/core';
import { Redis } from 'ioredis';
import { createThrottledFetch } from '../src/index.js';

const [redisUrl, prefix, name] = process.argv.slice(2);
const client = new Redis(redisUrl!);
const store = new RedisStore({ client });
const limiter = createLimiter({ qps: 1000, store, prefix: `${prefix}:limit` });
const throttled = createThrottledFetch({
  limiter,
  store,
  prefix: `${prefix}:pause`,
  events: { pause: ({ pauseMs }) => process.send!({ paused: pauseMs }) },
});

// Connects and loads the script before the test starts the clock.
await limiter.peek('warm-up');
process.send!({ ready: true });
process.on('message', async (message: { call: string } | 'exit') => {
  if (message === 'exit') {
    client.disconnect();
    process.exit(0);
  }
  const response = await throttled(message.call, { headers: { 'x-worker': name! } });
  process.send!({ status: response.status });
});
