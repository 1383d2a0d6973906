// Starts the example on a free port, fires a burst at GET /api/public and prints what comes back.
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { createApp } from './app.js';
import { createStore } from './store.js';

const SHOWN = ['ratelimit-policy', 'ratelimit', 'retry-after'];

const { store, kind, close } = createStore();
const server = serve({ fetch: createApp({ store }).fetch, port: 0, hostname: '127.0.0.1' });
await new Promise((resolve) => server.once('listening', resolve));
const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/public`;

console.log(`Hono example (store: ${kind}): 8 requests to GET /api/public, limited per IP to 5 at once, then 1 every 5 seconds\n`);
for (let i = 1; i <= 8; i++) {
  const res = await fetch(url);
  const headers = SHOWN.filter((name) => res.headers.has(name)).map((name) => `${name}: ${res.headers.get(name)}`);
  console.log(`request ${i}  ${res.status} ${res.statusText.padEnd(17)} ${headers.join('  ')}`);
  await res.arrayBuffer();
}
console.log('\nRun it yourself: pnpm --filter @tollgate/example-hono start, then curl -i http://localhost:3000/api/public');

server.close();
await close();
