import { startFakeLlm } from '@tollgate/testing';
import { createProxy } from './app.js';
import { createStore } from './store.js';

const port = Number(process.env.PORT ?? 3000);
const { store, kind, close } = createStore();
const accounting = process.env.ACCOUNTING ?? 'hold';
if (accounting !== 'hold' && accounting !== 'charge-after') throw new Error(`ACCOUNTING must be hold or charge-after (got ${accounting})`);
// Without UPSTREAM_URL, a fake LLM API of 100 000 tokens a minute stands in for the real one.
const fake = process.env.UPSTREAM_URL ? undefined : await startFakeLlm({ tokensPerWindow: 100_000, tokenIntervalMs: 5 });
const upstream = process.env.UPSTREAM_URL ?? fake!.url;
const app = createProxy({
  store,
  upstream,
  budgets: { requestsPerMinute: 20, tokensPerMinute: 2000, concurrency: 2 },
  accounting,
  keyPrefix: process.env.KEY_PREFIX || undefined,
});

const server = app.listen(port, () => {
  const address = server.address();
  const actualPort = typeof address === 'object' && address !== null ? address.port : port;
  console.log(`LLM proxy listening on http://localhost:${actualPort} (store: ${kind}, upstream: ${upstream})`);
});

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    server.close(() => void Promise.all([close(), fake?.close()]));
  });
}
