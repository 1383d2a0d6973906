import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { markdownExample, type RedisTarget, runTypeScript, startRedis } from '@tollgate/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const README = new URL('../../packages/nestjs/README.md', import.meta.url);
// Inside this package, so the examples' imports resolve to its dependencies (@nestjs/config, the built @tollgate packages).
const outDir = fileURLToPath(new URL('../.tmp/nest-readme-exits/', import.meta.url));

/** Boots the README's AppModule (no HTTP platform: an application context), closes it, and says so. */
const RUNNER = `import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { AppModule } from './example.js';

const app = await NestFactory.createApplicationContext(AppModule, { logger: false });
await app.close();
console.log('closed');
`;

let redis: RedisTarget;
beforeAll(async () => {
  redis = await startRedis();
  mkdirSync(outDir, { recursive: true });
  writeFileSync(`${outDir}rules.yaml`, 'rules:\n  - name: api\n    limit: { qps: 10 }\n');
}, 60_000);
afterAll(() => redis?.close());

/** Runs the README's first example under `heading`: resolves once the process exited on its own (a process left running fails at the timeout). */
const bootAndClose = (heading: string) =>
  runTypeScript(outDir, { 'example.ts': markdownExample(README, heading), 'main.ts': RUNNER }, 'main.ts', {
    cwd: outDir,
    env: { REDIS_URL: redis.url },
  });

describe("the Nest README's Redis examples exit after app.close() (run `pnpm build` first)", () => {
  it('forRootAsync with a Redis client built from the configuration', async () => {
    expect(await bootAndClose('## `RateLimitModule.forRoot(options)` / `forRootAsync({ imports, inject, useFactory })`')).toBe('closed\n');
  }, 60_000);

  it('a rule set from a file on Redis', async () => {
    expect(await bootAndClose('## Rules from a file')).toBe('closed\n');
  }, 60_000);
});
