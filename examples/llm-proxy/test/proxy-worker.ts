// One proxy process on a shared Redis, for proxy.test.ts: argv[2] is the JSON of
// { redisUrl, upstream, keyPrefix, budgets, upstreamInFlight, maxCallTokens }.
import type { AddressInfo } from 'node:net';
import { RedisStore } from '@tollgate/core';
import { Redis } from 'ioredis';
import { createProxy, type ProxyOptions } from '../src/app.js';

const { redisUrl, ...options } = JSON.parse(process.argv[2]!) as Omit<ProxyOptions, 'store'> & { redisUrl: string };
const client = new Redis(redisUrl);
const server = createProxy({ ...options, store: new RedisStore({ client }) }).listen(0, '127.0.0.1', () => {
  console.log(`proxy listening on http://127.0.0.1:${(server.address() as AddressInfo).port}`);
});
process.once('SIGTERM', () => {
  server.close();
  client.disconnect();
});
