import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { findFreePort } from './ports.js';

const INSTALL_HINT =
  'redis-server was not found on PATH. Install it (Debian/Ubuntu: `sudo apt-get install -y redis-server`; ' +
  'macOS: `brew install redis`) or point the tests at a running server with REDIS_URL=redis://host:port.';

export function assertRedisInstalled(): void {
  try {
    execFileSync('redis-server', ['--version'], { stdio: 'ignore' });
  } catch {
    throw new Error(INSTALL_HINT);
  }
}

export interface RedisProcessOptions {
  port?: number;
  /** Extra `redis-server` arguments, e.g. `['--cluster-enabled', 'yes']`. */
  args?: string[];
  /** Working directory for files such as the cluster config. */
  dir?: string;
}

/** A `redis-server` child process this test owns: it can be stopped, killed, paused and restarted. */
export class RedisProcess {
  readonly port: number;
  private child: ChildProcess | undefined;
  private readonly dir: string;
  private readonly ownsDir: boolean;

  private constructor(
    port: number,
    private readonly extraArgs: string[],
    dir: string | undefined,
  ) {
    this.port = port;
    this.ownsDir = dir === undefined;
    this.dir = dir ?? mkdtempSync(join(tmpdir(), 'tollgate-redis-'));
  }

  static async start(options: RedisProcessOptions = {}): Promise<RedisProcess> {
    assertRedisInstalled();
    const server = new RedisProcess(options.port ?? (await findFreePort()), options.args ?? [], options.dir);
    await server.launch();
    return server;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  /** (Re)starts the server on the same port; a restarted server has no data and no scripts. */
  async launch(): Promise<void> {
    const args = [
      '--port',
      String(this.port),
      '--bind',
      '127.0.0.1',
      '--save',
      '',
      '--appendonly',
      'no',
      '--dir',
      this.dir,
      ...this.extraArgs,
    ];
    const child = spawn('redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    this.child = child;
    let output = '';
    child.stdout?.on('data', (chunk) => (output += chunk));
    child.stderr?.on('data', (chunk) => (output += chunk));
    await waitForPing(this.port, child, () => output);
  }

  /** SIGKILL: the server vanishes mid-conversation, as in a crash. */
  async kill(): Promise<void> {
    await this.signal('SIGKILL');
  }

  async stop(): Promise<void> {
    await this.signal('SIGTERM');
    if (this.ownsDir) rmSync(this.dir, { recursive: true, force: true });
  }

  /** SIGSTOP / SIGCONT: the server stays connected but answers nothing. */
  pause(): void {
    this.child?.kill('SIGSTOP');
  }

  resume(): void {
    this.child?.kill('SIGCONT');
  }

  private async signal(signal: NodeJS.Signals): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGCONT');
    child.kill(signal);
    await exited;
  }
}

async function waitForPing(port: number, child: ChildProcess, output: () => string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`redis-server exited with ${child.exitCode}: ${output()}`);
    const probe = new Redis({ port, host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    probe.on('error', () => {});
    try {
      await probe.connect();
      if ((await probe.ping()) === 'PONG') return;
    } catch {
      // not up yet
    } finally {
      probe.disconnect();
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`redis-server on port ${port} did not answer within 10 s: ${output()}`);
}

/** A server for one test file: the one at REDIS_URL when set, else a fresh child process. */
export interface RedisTarget {
  url: string;
  /** Present when the test owns the process (not with REDIS_URL). */
  process: RedisProcess | undefined;
  close(): Promise<void>;
}

export async function startRedis(): Promise<RedisTarget> {
  const external = process.env.REDIS_URL;
  if (external) return { url: external, process: undefined, close: async () => {} };
  const server = await RedisProcess.start();
  return { url: server.url, process: server, close: () => server.stop() };
}
