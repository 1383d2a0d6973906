import { fileURLToPath } from 'node:url';
import { markdownExample, markdownSample, type RedisTarget, runTypeScript, startRedis } from '@tollgate/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const DOC = new URL('../../../../docs/throttling-workers-and-outbound-calls.md', import.meta.url);
// Inside the package, so the snippet's imports resolve as a user's do: to the built package and ioredis.
const outDir = fileURLToPath(new URL('../.tmp/workers-doc/', import.meta.url));

const LINE = /^writing (\w+) at \+(\d+) ms$/;
const rowsOf = (lines: readonly string[]) => lines.map((line) => LINE.exec(line)?.[1] ?? `(not a sample line: ${line})`);
const msOf = (lines: readonly string[]) => lines.map((line) => Number(LINE.exec(line)?.[2]));

let redis: RedisTarget;
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(() => redis.close());

describe('docs/throttling-workers-and-outbound-calls.md (run `pnpm build` first)', () => {
  it("runs the 'Wait for a turn' loop to its end and prints what its sample shows, no write before its 50 ms slot", async () => {
    const code = markdownExample(DOC, '## Wait for a turn');
    // The process must exit on its own: one left running is killed at the timeout and fails here.
    const printed = (await runTypeScript(outDir, { 'wait.ts': code }, 'wait.ts', { env: { REDIS_URL: redis.url } })).trim().split('\n');
    const sample = markdownSample(DOC, 'wait-for-a-turn');
    expect(rowsOf(printed)).toEqual(rowsOf(sample));
    const [ms, sampleMs] = [msOf(printed), msOf(sample)];
    // Each slot is 50 ms after the one before, from the start: a write never goes sooner than the
    // sample says (later only by scheduling, which also makes the printed gaps vary).
    ms.forEach((at, i) => {
      expect(at).toBeGreaterThanOrEqual(sampleMs[i]! - 2);
    });
  }, 60_000);
});
