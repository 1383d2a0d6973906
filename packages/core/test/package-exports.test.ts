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
    const out = runNode(['-e', "const t = require('@tollgate/core'); console.log(typeof t.createLimiter, typeof t.RedisStore)"]);
    expect(out).toBe('function function');
  });

  it('loads with import through the exports map and makes decisions', () => {
    const code = `import { createLimiter } from '@tollgate/core';
      const l = createLimiter({ qps: 1, burst: 2 });
      const d = [await l.consume('k'), await l.consume('k'), await l.consume('k')];
      console.log(d.map((x) => x.allowed).join(','));`;
    expect(runNode(['--input-type=module', '-e', code])).toBe('true,true,false');
  });
});
