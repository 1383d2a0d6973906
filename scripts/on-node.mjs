#!/usr/bin/env node
// Runs a command with another major version of Node.js first on PATH: `node scripts/on-node.mjs 22 vitest run`.
// The version comes from the npm registry's `node` package (cached by npx after the first run),
// so a machine with one Node installed tests every supported one.
import { execFileSync, spawn } from 'node:child_process';
import { dirname, join } from 'node:path';

const [major, command, ...args] = process.argv.slice(2);
if (!/^\d+$/.test(major ?? '') || command === undefined) {
  console.error('usage: node scripts/on-node.mjs <major> <command> [args...]');
  process.exit(2);
}

const binary = execFileSync('npx', ['--yes', `node@${major}`, '-p', 'process.execPath'], {
  encoding: 'utf8',
  stdio: ['ignore', 'pipe', 'inherit'],
}).trim();
const version = execFileSync(binary, ['--version'], { encoding: 'utf8' }).trim();
console.log(`on Node ${version}: ${[command, ...args].join(' ')}`);

const PATH = `${dirname(binary)}:${join(process.cwd(), 'node_modules', '.bin')}:${process.env.PATH}`;
const child = spawn(command, args, { stdio: 'inherit', env: { ...process.env, PATH } });
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
