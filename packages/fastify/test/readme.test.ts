import { markdownSample, VirtualClock } from '@tollgate/testing';
import Fastify from 'fastify';
import { expect, it } from 'vitest';
import { MemoryStore, rateLimit } from '../src/index.js';

/** The README's sample answer: the `http` block after the example. */
const sampleAnswer = () => markdownSample(new URL('../README.md', import.meta.url), 'fastify-over-the-limit').join('\n');

const SHOWN = ['ratelimit-policy', 'ratelimit', 'retry-after', 'cache-control', 'content-type'];

it("the README's sample answer is what its example app answers (on the memory store)", async () => {
  const clock = new VirtualClock();
  const app = Fastify({ trustProxy: false });
  await app.register(rateLimit, { qps: 10, burst: 20, clock: clock.now });
  const searchLimit = {
    limits: [
      { name: 'per-second', qps: 5, burst: 10 },
      { name: 'per-day', perDay: 10_000 },
    ],
    key: (request: { headers: Record<string, unknown> }) => request.headers['x-api-key']?.toString(),
    store: new MemoryStore(),
    clock: clock.now,
    prefix: 'api:search',
  };
  app.get('/api/search', { config: { rateLimit: searchLimit } }, (request) => ({ remaining: request.rateLimit?.remaining }));
  const search = () => app.inject({ url: '/api/search', headers: { 'x-api-key': 'alpha' } });
  for (let i = 0; i < 10; i++) expect((await search()).statusCode).toBe(200);
  const denied = await search();
  const fields = SHOWN.map((name) => `${name}: ${denied.headers[name]}`);
  expect([`HTTP/1.1 ${denied.statusCode} ${denied.statusMessage}`, ...fields, '', denied.body].join('\n')).toBe(sampleAnswer());
});
