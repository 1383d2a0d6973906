import { createApp } from './app.js';
import { createStore } from './store.js';

const port = Number(process.env.PORT ?? 3000);
const { store, kind, close } = createStore();
const app = createApp({ store, trustProxy: process.env.TRUST_PROXY === 'true', keyPrefix: process.env.KEY_PREFIX });

const server = app.listen(port, () => {
  const address = server.address();
  const actualPort = typeof address === 'object' && address !== null ? address.port : port;
  console.log(`Koa example listening on http://localhost:${actualPort} (store: ${kind})`);
});

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    server.close(() => void close());
  });
}
