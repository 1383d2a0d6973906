import type { IncomingMessage } from 'node:http';
import { getRequestListener } from '@hono/node-server';
import { markdownSample, VirtualClock } from '@tollgate/testing';
import { Hono } from 'hono';
import request from 'supertest';
import { expect, it } from 'vitest';
import { rateLimit } from '../src/index.js';

/** Fields the server adds whatever the app does. */
const TRANSPORT = new Set(['date', 'connection', 'keep-alive', 'content-length', 'transfer-encoding']);

/** A response as the README shows it: status line, the fields in the order sent, the body. */
function asHttp(res: request.Response): string {
  const { rawHeaders, statusCode, statusMessage } = (res as unknown as { res: IncomingMessage }).res;
  const fields: string[] = [];
  for (let i = 0; i < rawHeaders.length; i += 2) {
    if (!TRANSPORT.has(rawHeaders[i]!.toLowerCase())) fields.push(`${rawHeaders[i]}: ${rawHeaders[i + 1]}`);
  }
  return `HTTP/1.1 ${statusCode} ${statusMessage}\n${fields.join('\n')}\n\n${res.text}\n`;
}

it("shows what the Example's eleventh request of one API key within a second gets (on memory here)", async () => {
  const clock = new VirtualClock(Date.UTC(2026, 0, 1));
  const app = new Hono();
  app.use(rateLimit({ qps: 10, burst: 20, clock: clock.now }));
  app.get(
    '/api/search',
    rateLimit({
      limits: [
        { name: 'per-second', qps: 5, burst: 10 },
        { name: 'per-day', perDay: 10_000 },
      ],
      key: (c) => c.req.header('x-api-key'),
      clock: clock.now,
      prefix: 'api:search',
    }),
    (c) => c.json({ remaining: c.get('rateLimit')?.remaining }),
  );
  const server = getRequestListener(app.fetch);
  for (let i = 0; i < 10; i++) await request(server).get('/api/search').set('x-api-key', 'k1').expect(200);
  const denied = await request(server).get('/api/search').set('x-api-key', 'k1').expect(429);
  const sample = markdownSample(new URL('../README.md', import.meta.url), 'hono-over-the-limit');
  expect(`${sample.join('\n')}\n`).toBe(asHttp(denied));
});
