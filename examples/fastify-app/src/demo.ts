// Starts the example on a free port, fires a burst at GET /api/public and prints what comes back.
import type { AddressInfo } from 'node:net';
import { createApp } from './app.js';
import { createStore } from './store.js';

const SHOWN = ['ratelimit-policy', 'ratelimit', 'retry-after'];

const { store, kind, close } = createStore();
const app = await createApp({ store });
await app.listen({ port: 0, host: '127.0.0.1' });
const url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/api/public`;

console.log(`Fastify example (store: ${kind}): 8 requests to GET /api/public, limited per IP to 5 at once, then 1 every 5 seconds\n`);
for (let i = 1; i <= 8; i++) {
  const res = await fetch(url);
  const headers = SHOWN.filter((name) => res.headers.has(name)).map((name) => `${name}: ${res.headers.get(name)}`);
  console.log(`request ${i}  ${res.status} ${res.statusText.padEnd(17)} ${headers.join('  ')}`);
  await res.arrayBuffer();
}
console.log('\nRun it yourself: pnpm --filter @tollgate/example-fastify start, then curl -i http://localhost:3000/api/public');

await app.close();
await close();
