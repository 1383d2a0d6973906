import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { NodeProcess } from '@tollgate/testing';
import { createRateLimitClient, type RateLimitClient } from '../../src/index.js';

const CLI = fileURLToPath(new URL('../../src/cli.ts', import.meta.url));
const LISTENING = /"listening: gRPC (\d+), HTTP (\d+)/;

/** A folder of config files for `tollgate-server` processes. */
export class ConfigFolder {
  private constructor(readonly dir: string) {}

  static async create(): Promise<ConfigFolder> {
    return new ConfigFolder(await mkdtemp(join(tmpdir(), 'tollgate-server-')));
  }

  path(name: string): string {
    return join(this.dir, name);
  }

  async write(name: string, text: string): Promise<string> {
    await writeFile(this.path(name), text);
    return this.path(name);
  }

  remove(): Promise<void> {
    return rm(this.dir, { recursive: true, force: true });
  }
}

/** `tollgate-server --config <file>` in a child process, run from the sources, with a gRPC client of it. */
export class ServerProcess {
  private constructor(
    readonly process: NodeProcess,
    readonly grpcPort: number,
    readonly httpPort: number,
    readonly client: RateLimitClient,
  ) {}

  static async start(configFile: string): Promise<ServerProcess> {
    const child = await NodeProcess.start(['--import', 'tsx', CLI, '--config', configFile], { cwd: process.cwd(), ready: LISTENING });
    const [, grpc, http] = child.match;
    return new ServerProcess(child, Number(grpc), Number(http), createRateLimitClient(`127.0.0.1:${grpc}`));
  }

  /** The JSON lines it logged. */
  get logs(): { level: string; msg: string; err?: { code?: string; message: string } }[] {
    return this.process.printed
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line));
  }

  /** SIGTERM, and the exit. */
  async stop(): Promise<void> {
    this.client.close();
    await this.process.stop();
  }
}

/** A `tollgate.yaml` on loopback with free ports, the given Redis and the rest as given (YAML lines). */
export function serverYaml(redisUrl: string | undefined, rest: string): string {
  return `grpc: { host: 127.0.0.1, port: 0 }
http: { host: 127.0.0.1, port: 0 }
${redisUrl === undefined ? '' : `redis: ${redisUrl}\n`}${rest}`;
}
