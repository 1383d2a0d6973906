import { createApp } from './app.js';
import { createStore } from './store.js';

const port = Number(process.env.PORT ?? 3000);
const { store, kind, close } = createStore();
const app = await createApp({ store, trustProxy: process.env.TRUST_PROXY === 'true', keyPrefix: process.env.KEY_PREFIX });

await app.listen({ port, host: '127.0.0.1' });
const address = app.server.address();
const actualPort = typeof address === 'object' && address !== null ? address.port : port;
console.log(`Fastify example listening on http://localhost:${actualPort} (store: ${kind})`);

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    void app.close().then(close);
  });
}
