import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const packageDir = fileURLToPath(new URL('..', import.meta.url));

/** Runs a snippet in a fresh Node process from the package folder, against the built dist. */
function runNode(args: string[]): string {
  return execFileSync(process.execPath, args, { cwd: packageDir, encoding: 'utf8' }).trim();
}

describe('the built package (run `pnpm build` first; `pnpm test` does)', () => {
  it('loads with require() through the exports map', () => {
    const out = runNode([
      '-e',
      "const f = require('@tollgate/fetch'); console.log(typeof f.createThrottledFetch, typeof f.readUpstreamLimits)",
    ]);
    expect(out).toBe('function function');
  });

  it('loads with import through the exports map and reads upstream headers', () => {
    const code = `import { readUpstreamLimits } from '@tollgate/fetch';
      const limits = readUpstreamLimits(429, new Headers({ 'retry-after': '3' }), Date.now(), 60000);
      console.log(limits.pauseMs);`;
    expect(runNode(['--input-type=module', '-e', code])).toBe('3000');
  });
});
