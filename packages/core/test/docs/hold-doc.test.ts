import { fileURLToPath } from 'node:url';
import { markdownExample, markdownSample, runTypeScript } from '@tollgate/testing';
import { describe, expect, it } from 'vitest';

const README = new URL('../../README.md', import.meta.url);
// Inside the package, so the snippet's imports resolve as a user's do: to the built package.
const outDir = fileURLToPath(new URL('../.tmp/hold-doc/', import.meta.url));

describe('README, Holds (run `pnpm build` first)', () => {
  it('runs the example and prints what its sample shows', async () => {
    const code = markdownExample(README, '### Holds: costs known after the work');
    const printed = (await runTypeScript(outDir, { 'hold.ts': code }, 'hold.ts')).trim().split('\n');
    expect(printed).toEqual(markdownSample(README, 'hold-settle'));
  }, 60_000);
});
