import { serve } from '@hono/node-server';
import { createApp } from './app.js';
import { createStore } from './store.js';

const port = Number(process.env.PORT ?? 3000);
const { store, kind, close } = createStore();
const app = createApp({ store, trustProxy: process.env.TRUST_PROXY === 'true', keyPrefix: process.env.KEY_PREFIX });

const server = serve({ fetch: app.fetch, port }, (info) => {
  console.log(`Hono example listening on http://localhost:${info.port} (store: ${kind})`);
});

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    server.close(() => void close());
  });
}
