import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const rootDir = fileURLToPath(new URL('../../..', import.meta.url));

export interface RunTypeScriptOptions {
  /** Added to the parent's environment. */
  env?: Record<string, string | undefined>;
  /** Default 30 s: a script still running then is killed, and the call rejects. */
  timeoutMs?: number;
  /** The working directory, where the script's relative file paths (`'rules.yaml'`) are read. Default: the repository root. */
  cwd?: string;
}

/**
 * Writes `files` (name → TypeScript source) into `dir` and runs `entry` with tsx in a child
 * process, as a user's script runs: its imports resolve from `dir` (put it inside a package to
 * reach that package's dependencies and, by its own name, its build). Resolves to what it printed
 * once it exits with 0 — it must exit on its own: a script left running rejects at the timeout.
 */
export async function runTypeScript(dir: string, files: Record<string, string>, entry: string, options: RunTypeScriptOptions = {}) {
  mkdirSync(dir, { recursive: true });
  for (const [name, source] of Object.entries(files)) writeFileSync(join(dir, name), source);
  // Nest's (legacy) decorators, as a Nest app's tsconfig asks for them.
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: { experimentalDecorators: true } }));
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', join(dir, entry)], {
    cwd: options.cwd ?? rootDir,
    env: { ...process.env, ...options.env, TSX_TSCONFIG_PATH: join(dir, 'tsconfig.json') },
    timeout: options.timeoutMs ?? 30_000,
  });
  return stdout;
}
