import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const packagesDir = fileURLToPath(new URL('../../packages/', import.meta.url));

export interface PackedPackage {
  name: string;
  version: string;
  /** Absolute path of the .tgz. */
  tarball: string;
}

/** The folders of the packages that are published (not `private`). */
export function publicPackageDirs(): string[] {
  return readdirSync(packagesDir)
    .map((name) => join(packagesDir, name))
    .filter((dir) => {
      try {
        return JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).private !== true;
      } catch {
        return false;
      }
    });
}

/**
 * Packs every public package into `destination` as a publish would: with `pnpm pack`, so the
 * `workspace:` ranges become real ones. The packages must be built (`pnpm test` builds first).
 */
export async function packPublicPackages(destination: string): Promise<PackedPackage[]> {
  return Promise.all(
    publicPackageDirs().map(async (dir) => {
      const { stdout } = await run('pnpm', ['pack', '--json', '--pack-destination', destination], { cwd: dir });
      const { name, version, filename } = JSON.parse(stdout) as { name: string; version: string; filename: string };
      return { name, version, tarball: filename };
    }),
  );
}
