// What rls.ts and instructions.ts share: the processes they start and the calls they send.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RateLimitClient, RateLimitRequest } from '@tollgate/server';

export const CONCURRENCY = 64;
export const IDENTITIES = 1000;
export const benchDir = fileURLToPath(new URL('..', import.meta.url));
const cli = fileURLToPath(new URL('../../packages/server/dist/cli.js', import.meta.url));

export interface Started {
  child: ChildProcess;
  pid: number;
  port: number;
  stop(): Promise<void>;
}

/** `command args` (node, or valgrind running node) in bench/, once it prints `listening: gRPC <port>`. */
export async function startProcess(command: string, args: string[]): Promise<Started> {
  const child = spawn(command, args, { cwd: benchDir, stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<number>((resolve, reject) => {
    let printed = '';
    child.stdout!.on('data', (chunk) => {
      printed += chunk;
      const match = /listening: gRPC (\d+)/.exec(printed);
      if (match) resolve(Number(match[1]));
    });
    child.once('exit', (code) => reject(new Error(`${args.join(' ')} exited with ${code}: ${printed}`)));
  });
  return {
    child,
    pid: child.pid!,
    port,
    async stop() {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** The arguments of `tollgate-server` (the built command) on Redis, one descriptor whose limit is never reached. */
export function serverArgs(redisUrl: string): string[] {
  const config = join(mkdtempSync(join(tmpdir(), 'tollgate-bench-server-')), 'tollgate.yaml');
  writeFileSync(
    config,
    `grpc: { host: 127.0.0.1, port: 0 }
http: false
redis: ${redisUrl}
prefix: bench-${Date.now()}
domains:
  - domain: bench
    descriptors:
      - key: user
        rate_limit: { unit: minute, requests_per_unit: 4000000000 }
`,
  );
  return [cli, '--config', config];
}

export const request = (i: number): RateLimitRequest => ({
  domain: 'bench',
  descriptors: [{ entries: [{ key: 'user', value: `u${i % IDENTITIES}` }] }],
});

/** Sends `count` calls, CONCURRENCY at a time; each must be OK. */
export async function callMany(client: RateLimitClient, count: number): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < count) {
        const response = await client.shouldRateLimit(request(next++));
        if (response.overall_code !== 'OK') throw new Error(`unexpected ${response.overall_code}`);
      }
    }),
  );
}
