#!/usr/bin/env node
// Runs a command with another version of Node.js first on PATH: `node scripts/on-node.mjs 22 vitest run` (the
// latest 22), or an exact one (`20.19.0`, the oldest the packages support).
// The version comes from the npm registry's `node` package (cached by npx after the first run),
// so a machine with one Node installed tests every supported one.
import { execFileSync, spawn } from 'node:child_process';
import { dirname, join } from 'node:path';

const [version, command, ...args] = process.argv.slice(2);
if (!/^\d+(\.\d+){0,2}$/.test(version ?? '') || command === undefined) {
  console.error('usage: node scripts/on-node.mjs <major or exact version> <command> [args...]');
  process.exit(2);
}

const binary = execFileSync('npx', ['--yes', `node@${version}`, '-p', 'process.execPath'], {
  encoding: 'utf8',
  stdio: ['ignore', 'pipe', 'inherit'],
}).trim();
const running = execFileSync(binary, ['--version'], { encoding: 'utf8' }).trim();
console.log(`on Node ${running}: ${[command, ...args].join(' ')}`);

const PATH = `${dirname(binary)}:${join(process.cwd(), 'node_modules', '.bin')}:${process.env.PATH}`;
const child = spawn(command, args, { stdio: 'inherit', env: { ...process.env, PATH } });
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
