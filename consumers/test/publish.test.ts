import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PackedPackage, packPublicPackages, publicPackageDirs } from '../src/pack.js';

const run = promisify(execFile);
const bin = (name: string) => fileURLToPath(new URL(`../node_modules/.bin/${name}`, import.meta.url));
const PUBLINT = bin('publint');
const ATTW = bin('attw');

const destination = mkdtempSync(join(tmpdir(), 'tollgate-pack-'));
let packed: PackedPackage[];
beforeAll(async () => {
  packed = await packPublicPackages(destination);
}, 120_000);
afterAll(() => rmSync(destination, { recursive: true, force: true }));

/** Runs a linter on a tarball; resolves to what it printed when it failed, '' when it passed. */
async function lint(cli: string, args: string[]): Promise<string> {
  try {
    await run(cli, args, { maxBuffer: 16 * 1024 * 1024 });
    return '';
  } catch (error) {
    const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string };
    return `${stdout}${stderr}` || String(error);
  }
}

/** A file of the tarball, as the registry would serve it. */
async function fileOf(tarball: string, path: string): Promise<string> {
  return (await run('tar', ['-xzOf', tarball, `package/${path}`], { maxBuffer: 16 * 1024 * 1024 })).stdout;
}

const ROOT_MANIFEST = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { engines: { node: string } };
const packageNames = publicPackageDirs().map((dir) => JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).name as string);

describe('the tarballs a publish would upload (pnpm pack)', () => {
  it('packs every public package', () => {
    expect(packed.map((pkg) => pkg.name).sort()).toEqual([...packageNames].sort());
  });

  describe.each(packageNames)('%s', (name) => {
    const tarball = () => packed.find((pkg) => pkg.name === name)!.tarball;

    it('passes publint --strict', async () => {
      expect(await lint(PUBLINT, ['--strict', tarball()])).toBe('');
    });

    it('passes @arethetypeswrong/cli (node10, node16 CJS and ESM, bundler)', async () => {
      expect(await lint(ATTW, [tarball(), '--format', 'ascii', '--no-emoji', '--no-color'])).toBe('');
    });

    it('carries the LICENSE, the README and the metadata a registry shows; no workspace: ranges, no test harness', async () => {
      const manifest = JSON.parse(await fileOf(tarball(), 'package.json'));
      expect(await fileOf(tarball(), 'LICENSE')).toMatch(/^MIT License/);
      expect(await fileOf(tarball(), 'README.md')).toMatch(new RegExp(`^# ${name}`));
      expect(manifest).toMatchObject({
        license: 'MIT',
        publishConfig: { access: 'public' },
        repository: { type: 'git', directory: `packages/${basename(name)}` },
      });
      expect(manifest.homepage).toMatch(/^https:\/\//);
      expect(manifest.bugs.url).toMatch(/^https:\/\//);
      expect(manifest.keywords.length).toBeGreaterThan(0);
      const ranges = { ...manifest.dependencies, ...manifest.peerDependencies, ...manifest.optionalDependencies };
      for (const [dependency, range] of Object.entries(ranges)) expect(`${dependency}@${range}`).not.toContain('workspace:');
      expect(Object.keys(ranges)).not.toContain('@tollgate/testing');
    });

    it("states the Node range the repository's engines field holds, and how to install the package before it is on the registry", async () => {
      const manifest = JSON.parse(await fileOf(tarball(), 'package.json'));
      const readme = await fileOf(tarball(), 'README.md');
      expect(manifest.engines).toEqual(ROOT_MANIFEST.engines);
      expect(readme).toContain(`Node ${ROOT_MANIFEST.engines.node.replace('>=', '')} or later (tested on Node 20, 22 and 24)`);
      expect(readme).toContain(`/tmp/tollgate/tollgate-${basename(name)}-*.tgz`);
    });
  });
});
