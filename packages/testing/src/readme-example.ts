import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asCurlShows, markdownExample, markdownSample } from './markdown-sample.js';
import { findFreePort } from './ports.js';
import { type RedisTarget, startRedis } from './redis-server.js';
import { runTypeScript } from './run-typescript.js';

/** Starts the README's app (it listens on PORT), sends one API key's burst, prints the first rejection, and ends. */
const RUNNER = `import './example.js';

const url = 'http://127.0.0.1:' + process.env.PORT + '/api/search';
let last;
for (let i = 0; i < 30; i++) {
  last = await fetch(url, { headers: { 'x-api-key': 'k1' } });
  if (last.status === 429) break;
  await last.arrayBuffer();
}
console.log(JSON.stringify({ status: last.status, statusText: last.statusText, headers: Object.fromEntries(last.headers), body: await last.text() }));
process.exit(0); // the example is a server: it would serve on
`;

/** The `RateLimit` members' counts move with the time the requests took: compared apart. */
const withoutCounts = (lines: readonly string[]) => lines.map((line) => line.replace(/;([rt])=\d+/g, ';$1=#'));

/**
 * Runs the `## Example` of the README beside `testFile` (a package's test, `import.meta.url`) on a
 * real Redis, and checks its first 429 against the README's `over-the-limit` sample. The example
 * is written inside the package, so its imports resolve as a user's do: to the built package.
 */
export function describeReadmeExample(testFile: string): void {
  const readme = new URL('../README.md', testFile);
  const outDir = fileURLToPath(new URL('./.tmp/readme-example/', testFile));
  let redis: RedisTarget;
  let rejection: { status: number; statusText: string; headers: Record<string, string>; body: string };
  beforeAll(async () => {
    redis = await startRedis();
    const files = { 'example.ts': markdownExample(readme, '## Example'), 'main.ts': RUNNER };
    const env = { REDIS_URL: redis.url, PORT: String(await findFreePort()) };
    rejection = JSON.parse(await runTypeScript(outDir, files, 'main.ts', { env }));
  }, 60_000);
  afterAll(() => redis.close());

  describe("the README's example (run `pnpm build` first)", () => {
    it('answers a request over the limit as the sample shows, with the app-wide rule and the route rule', () => {
      const sample = markdownSample(readme, 'over-the-limit');
      const shown = asCurlShows(sample, { ...rejection, headers: new Headers(rejection.headers) });
      expect(withoutCounts(shown)).toEqual(withoutCounts(sample));
      expect(rejection.headers.ratelimit).toMatch(/"per-second";r=0;t=1\b/);
    });
  });
}
