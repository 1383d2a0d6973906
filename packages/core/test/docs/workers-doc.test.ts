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
  it("runs the 'Wait for a turn' loop to its end and prints what its sample shows, one write per 50 ms", async () => {
    const code = markdownExample(DOC, '## Wait for a turn');
    // The process must exit on its own: one left running is killed at the timeout and fails here.
    const printed = (await runTypeScript(outDir, { 'wait.ts': code }, 'wait.ts', { env: { REDIS_URL: redis.url } })).trim().split('\n');
    const sample = markdownSample(DOC, 'wait-for-a-turn');
    expect(rowsOf(printed)).toEqual(rowsOf(sample));
    const [ms, sampleMs] = [msOf(printed), msOf(sample)];
    // Never sooner than the sample says; later by scheduling only, and never two writes closer than 50 ms.
    ms.forEach((at, i) => {
      expect(at).toBeGreaterThanOrEqual(sampleMs[i]! - 1);
      if (i > 0) expect(at - ms[i - 1]!).toBeGreaterThanOrEqual(49);
    });
  }, 60_000);
});
