// One setup of the real overload experiment, in its own process so that the load generator's work
// does not delay this event loop: an Express app, the setup's guard, a fixed pool behind.
// Started by run.ts (fork); tells its port, then answers `trace` with the limit over time.
import type { AddressInfo } from 'node:net';
import express from 'express';
import { FixedPool } from './pool.js';
import { SERVICE_MS, SETUPS, SLOTS } from './setups.js';

const TRACE_EVERY_MS = 250;

const name = process.argv[2] ?? '';
const makeGuard = SETUPS[name];
if (!makeGuard) throw new Error(`no setup named ${JSON.stringify(name)}`);
const guard = makeGuard();
const pool = new FixedPool(SLOTS, SERVICE_MS);

const app = express();
if (guard.middleware) app.use(guard.middleware);
app.get('/work', async (_req, res) => {
  await pool.serve();
  res.end('done');
});

const startedAt = performance.now();
const trace: { atMs: number; limit: number | undefined; inflight: number | undefined }[] = [];
const tracer = setInterval(() => {
  const snapshot = guard.limiter?.snapshot();
  trace.push({ atMs: Math.round(performance.now() - startedAt), limit: snapshot?.limit, inflight: snapshot?.inflight });
}, TRACE_EVERY_MS);

const server = app.listen(0, '127.0.0.1', () => {
  process.send?.({ port: (server.address() as AddressInfo).port });
});
server.keepAliveTimeout = 10_000;

process.on('message', (message) => {
  if (message !== 'trace') return;
  clearInterval(tracer);
  guard.close();
  process.send?.({ trace }, () => process.exit(0));
});
