import { fileURLToPath } from 'node:url';
import { asCurlShows, markdownExample, markdownSample, type RedisTarget, runTypeScript, startRedis } from '@tollgate/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// Inside the package, so the example's imports resolve as a user's do: to the built package and its dependencies.
const outDir = fileURLToPath(new URL('./.tmp/readme-example/', import.meta.url));
const README = new URL('../README.md', import.meta.url);

/** Boots the README's AppModule, sends what the sample's curl commands send, prints the answers, closes the app. */
const RUNNER = `import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { AppModule } from './example.js';

const app = await NestFactory.create(AppModule, { logger: false });
await app.listen(0, '127.0.0.1');
const url = (await app.getUrl()) + '/books';
const post = () => fetch(url, { method: 'POST', headers: { 'x-api-key': 'k1' } });
const statuses = [];
for (let i = 0; i < 7; i++) statuses.push((await post()).status);
const last = await post();
console.log(JSON.stringify({ statuses, status: last.status, statusText: last.statusText, headers: Object.fromEntries(last.headers), body: await last.text() }));
await app.close();
`;

interface Answers {
  statuses: number[];
  status: number;
  statusText: string;
  headers: Record<string, string>;
  body: string;
}

let redis: RedisTarget;
let answers: Answers;
let exitedWithin: number;
beforeAll(async () => {
  redis = await startRedis();
  const started = Date.now();
  // A process that does not exit after `app.close()` is killed at the timeout and fails the test.
  const files = { 'example.ts': markdownExample(README, '## Copy-paste example'), 'main.ts': RUNNER };
  const stdout = await runTypeScript(outDir, files, 'main.ts', { env: { REDIS_URL: redis.url } });
  exitedWithin = Date.now() - started;
  answers = JSON.parse(stdout) as Answers;
}, 60_000);
afterAll(() => redis?.close());

describe("the README's copy-paste example on Redis (run `pnpm build` first)", () => {
  it('exits on its own after app.close()', () => {
    expect(exitedWithin).toBeLessThan(30_000);
  });

  it('answers as its sample output shows', () => {
    const [, statusLine, , ...curl] = markdownSample(README, 'copy-paste-example');
    expect(answers.statuses.join(' ')).toBe(statusLine?.trim());
    expect(asCurlShows(curl, { ...answers, headers: new Headers(answers.headers) })).toEqual(curl);
  });
});
