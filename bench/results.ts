// Where bench scripts keep their figures: results/<name>.json, which charts/render.ts draws.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';

const resultsDir = fileURLToPath(new URL('./results/', import.meta.url));

export interface Machine {
  date: string;
  node: string;
  cpus: string;
  redis: string;
  loadAverage: number;
}

/** The conditions of a run, stored with its figures. */
export function machine(): Machine {
  let redis = 'unknown';
  try {
    redis = execFileSync('redis-server', ['--version'], { encoding: 'utf8' }).match(/v=(\S+)/)?.[1] ?? redis;
  } catch {
    // No redis-server on the PATH: REDIS_URL pointed elsewhere.
  }
  return {
    date: new Date().toISOString().slice(0, 16).replace('T', ' '),
    node: process.version,
    cpus: `${os.cpus().length}× ${os.cpus()[0]?.model ?? 'unknown'}`,
    redis,
    loadAverage: Number(os.loadavg()[0]!.toFixed(2)),
  };
}

export function writeResults(name: string, data: unknown): void {
  mkdirSync(resultsDir, { recursive: true });
  writeFileSync(`${resultsDir}${name}.json`, `${JSON.stringify(data, null, 2)}\n`);
}

export function readResults<T>(name: string): T | undefined {
  try {
    return JSON.parse(readFileSync(`${resultsDir}${name}.json`, 'utf8')) as T;
  } catch {
    return undefined;
  }
}
