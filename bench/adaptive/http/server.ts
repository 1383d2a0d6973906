// The servers of the real overload experiment, in a process of their own so that the load
// generator's work does not delay this event loop. Started once by run.ts (fork); for each
// `{ setup }` message it starts an Express app (the setup's guard, a fresh fixed pool behind) and
// tells its port; `trace` stops it and answers with the limit over time.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { FixedPool } from './pool.js';
import { SERVICE_MS, SETUPS, SLOTS } from './setups.js';

const TRACE_EVERY_MS = 250;

type Trace = { atMs: number; limit: number | undefined; inflight: number | undefined }[];

function start(name: string): () => Trace {
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
  const trace: Trace = [];
  const rejections: Record<string, number> = {};
  guard.limiter?.on('rejected', ({ partition, reason }) => {
    const key = `${partition ?? 'all'} ${reason}`;
    rejections[key] = (rejections[key] ?? 0) + 1;
  });
  const tracer = setInterval(() => {
    const snapshot = guard.limiter?.snapshot();
    trace.push({ atMs: Math.round(performance.now() - startedAt), limit: snapshot?.limit, inflight: snapshot?.inflight });
  }, TRACE_EVERY_MS);
  const server: Server = app.listen(0, '127.0.0.1', () => {
    process.send?.({ port: (server.address() as AddressInfo).port });
  });
  return () => {
    if (Object.keys(rejections).length > 0) console.error(`${name}: refused by partition and reason`, rejections);
    clearInterval(tracer);
    guard.close();
    server.close();
    server.closeAllConnections();
    return trace;
  };
}

let stop: (() => Trace) | undefined;
process.on('message', (message: { setup: string } | 'trace' | 'exit') => {
  if (message === 'exit') process.exit(0);
  else if (message === 'trace') process.send?.({ trace: stop?.() ?? [] });
  else stop = start(message.setup);
});
