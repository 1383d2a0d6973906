import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * Loads the built middleware package `name` (from `packageUrl`, its folder) the way users do:
 * require() and import through its exports map, and checks `rateLimit` and `RedisStore` are there
 * and that `factory` (default `rateLimit`; a plugin package names the export that builds a
 * limiter as a function of its own) builds one from options.
 */
export function describeBuiltPackage(packageUrl: URL, name: string, factory = 'rateLimit'): void {
  const packageDir = fileURLToPath(packageUrl);
  const runNode = (args: string[]) => execFileSync(process.execPath, args, { cwd: packageDir, encoding: 'utf8' }).trim();

  describe('the built package (run `pnpm build` first; `pnpm test` does)', () => {
    it('loads with require() through the exports map', () => {
      expect(runNode(['-e', `const t = require('${name}'); console.log(typeof t.rateLimit, typeof t.RedisStore)`])).toBe(
        'function function',
      );
    });

    it('loads with import through the exports map', () => {
      const code = `import { ${factory} } from '${name}'; console.log(typeof ${factory}({ qps: 1 }));`;
      expect(runNode(['--input-type=module', '-e', code])).toBe('function');
    });
  });
}
