import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const packageDir = fileURLToPath(new URL('..', import.meta.url));

function runNode(args: string[]): string {
  return execFileSync(process.execPath, args, { cwd: packageDir, encoding: 'utf8' }).trim();
}

describe('the built package (run `pnpm build` first; `pnpm test` does)', () => {
  it('loads with require() through the exports map', () => {
    expect(runNode(['-e', "const t = require('@tollgate/koa'); console.log(typeof t.rateLimit, typeof t.RedisStore)"])).toBe(
      'function function',
    );
  });

  it('loads with import through the exports map', () => {
    const code = "import { rateLimit } from '@tollgate/koa'; console.log(typeof rateLimit({ qps: 1 }));";
    expect(runNode(['--input-type=module', '-e', code])).toBe('function');
  });
});
