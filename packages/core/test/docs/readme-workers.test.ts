import { fileURLToPath } from 'node:url';
import { markdownExample, type RedisTarget, runTypeScript, startRedis } from '@tollgate/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const README = new URL('../../README.md', import.meta.url);
// Inside the package, so the snippets' imports resolve as a user's do: to the built package and ioredis.
const outDir = fileURLToPath(new URL('../.tmp/readme-workers/', import.meta.url));

let redis: RedisTarget;
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(() => redis.close());

/** Runs the README's snippet under `heading` on the test's Redis: it must exit on its own (one left running fails at the timeout). */
const run = async (heading: string) =>
  (await runTypeScript(outDir, { 'worker.ts': markdownExample(README, heading) }, 'worker.ts', { env: { REDIS_URL: redis.url } }))
    .trim()
    .split('\n');

describe("the README's worker snippets run to their end and exit (run `pnpm build` first)", () => {
  it('the wait loop', async () => {
    expect(await run('## Waiting for a turn (`wait`)')).toEqual(['processing job-1']);
  }, 60_000);

  it('waitAll over a tenant and a global limit', async () => {
    expect(await run('### Several limits on different keys at once (`waitAll`)')).toEqual(['acme may start; 0 more could go at once']);
  }, 60_000);
});
