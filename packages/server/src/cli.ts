#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { main } from './cli/main.js';

const { values } = parseArgs({ options: { config: { type: 'string', short: 'c' }, help: { type: 'boolean', short: 'h' } } });
if (values.help || values.config === undefined) {
  process.stdout.write('usage: tollgate-server --config tollgate.yaml\n');
  process.exitCode = values.help ? 0 : 2;
} else {
  void main(values.config);
}
