import { execFile } from 'node:child_process';
import { cpSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { Consumer } from './consumers.js';
import type { PackedPackage } from './pack.js';

const execFileAsync = promisify(execFile);

/** Runs a command; a failure carries everything it printed (tsc reports on stdout, npm on stderr). */
async function run(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  try {
    await execFileAsync(command, args, { cwd, env, maxBuffer: 16 * 1024 * 1024 });
  } catch (error) {
    const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string };
    throw new Error(`${command} ${args.join(' ')} failed in ${cwd}\n${stdout}${stderr}`);
  }
}

/** npm as on a user's machine: none of the npm_config_* settings pnpm passes to the scripts it runs. */
function userNpmEnv(): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_(config|package|lifecycle)_/i.test(name)));
  return { ...env, npm_config_legacy_peer_deps: 'false' };
}
const fixtures = fileURLToPath(new URL('../fixtures/', import.meta.url));
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');

/**
 * Makes `dir` the consumer's project: its sources, a package.json naming the tarballs and the
 * registry ranges, then `npm install` as a user runs it (no --legacy-peer-deps: a peer range
 * that does not fit fails here with ERESOLVE).
 */
export async function installConsumer(consumer: Consumer, dir: string, packed: readonly PackedPackage[]): Promise<void> {
  cpSync(join(fixtures, consumer.fixture), dir, { recursive: true });
  const tollgate = consumer.tollgate.map((name) => {
    const tarball = packed.find((pkg) => pkg.name === name)?.tarball;
    if (tarball === undefined) throw new Error(`${name} was not packed`);
    return [name, `file:${tarball}`];
  });
  const manifest = {
    name: `consumer-${consumer.fixture}`,
    private: true,
    type: consumer.type,
    dependencies: { ...Object.fromEntries(tollgate), ...consumer.dependencies },
  };
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  await run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error'], dir, userNpmEnv());
}

/** Compiles a TypeScript consumer with its own tsconfig.json, against the types it installed. */
export async function compileConsumer(dir: string): Promise<void> {
  await run(process.execPath, [tsc, '-p', dir], dir);
}

const vitestPackage = realpathSync(fileURLToPath(new URL('../node_modules/vitest', import.meta.url)));

/** One test of a suite run in a consumer, as vitest's JSON reporter describes it. */
export interface SuiteTest {
  name: string;
  status: string;
  failureMessages: string[];
}

/**
 * Runs the vitest suite of a consumer project in it, with this repository's vitest (linked into
 * its node_modules, so the project installs none): its tests import the packages the project
 * installed. Answers every test with its status.
 */
export async function runConsumerSuite(dir: string, env: NodeJS.ProcessEnv): Promise<SuiteTest[]> {
  symlinkSync(vitestPackage, join(dir, 'node_modules', 'vitest'), 'dir');
  const output = join(dir, 'vitest-results.json');
  const args = [join(vitestPackage, 'vitest.mjs'), 'run', '--reporter=json', `--outputFile=${output}`];
  await execFileAsync(process.execPath, args, { cwd: dir, env: { ...process.env, ...env }, maxBuffer: 64 * 1024 * 1024 }).catch(
    () => undefined, // failures are in the results
  );
  const results = JSON.parse(readFileSync(output, 'utf8')) as {
    testResults: { name: string; message?: string; assertionResults: { fullName: string; status: string; failureMessages: string[] }[] }[];
  };
  return results.testResults.flatMap((file) => [
    // A file that failed to load has no test results, only its message.
    ...(file.assertionResults.length === 0 && file.message ? [{ name: file.name, status: 'failed', failureMessages: [file.message] }] : []),
    ...file.assertionResults.map((test) => ({ name: test.fullName, status: test.status, failureMessages: test.failureMessages })),
  ]);
}
