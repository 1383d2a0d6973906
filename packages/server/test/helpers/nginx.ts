import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findFreePort } from '@tollgate/testing';

const INSTALL_HINT = 'nginx was not found. Install it (Debian/Ubuntu: `sudo apt-get install -y nginx`); .ci/run installs it when missing.';
/** The user an nginx started by root runs as, so it holds no privilege. */
const NOBODY = 65534;

function nginxBinary(): string {
  for (const candidate of ['nginx', '/usr/sbin/nginx']) {
    try {
      execFileSync(candidate, ['-v'], { stdio: 'ignore' });
      return candidate;
    } catch {
      // try the next
    }
  }
  throw new Error(INSTALL_HINT);
}

/**
 * A real nginx of its own: its prefix, config, pid and logs in a temp folder, listening on a
 * free loopback port, run as an unprivileged user, in the foreground, stopped by the test.
 */
export class NginxProcess {
  private constructor(
    private readonly child: ChildProcess,
    readonly port: number,
    private readonly dir: string,
  ) {}

  /** Starts nginx with the `http { ... }` block `httpBlock(port, dir)` returns. */
  static async start(httpBlock: (port: number, dir: string) => string): Promise<NginxProcess> {
    const binary = nginxBinary();
    const dir = mkdtempSync(join(tmpdir(), 'tollgate-nginx-'));
    chmodSync(dir, 0o777);
    const port = await findFreePort();
    const config = join(dir, 'nginx.conf');
    writeFileSync(
      config,
      `worker_processes 1;\ndaemon off;\npid ${dir}/nginx.pid;\nerror_log ${dir}/error.log warn;\nevents { worker_connections 256; }\n${httpBlock(port, dir)}\n`,
    );
    const asRoot = process.getuid?.() === 0;
    const child = spawn(binary, ['-p', dir, '-c', config], { stdio: 'ignore', ...(asRoot ? { uid: NOBODY, gid: NOBODY } : {}) });
    const nginx = new NginxProcess(child, port, dir);
    await nginx.waitUntilListening();
    return nginx;
  }

  /** The temp paths nginx writes to, inside its folder. */
  static tempPaths(dir: string): string {
    return ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((name) => `${name}_temp_path ${dir}/${name};`).join('\n  ');
  }

  get errorLog(): string {
    const file = join(this.dir, 'error.log');
    return existsSync(file) ? readFileSync(file, 'utf8') : '';
  }

  private async waitUntilListening(): Promise<void> {
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline) {
      if (this.child.exitCode !== null) throw new Error(`nginx exited with ${this.child.exitCode}: ${this.errorLog}`);
      if (await accepts(this.port)) return;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    throw new Error(`nginx did not listen on ${this.port} within 10 s: ${this.errorLog}`);
  }

  async stop(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) {
      const exited = new Promise((resolve) => this.child.once('exit', resolve));
      this.child.kill('SIGQUIT');
      await exited;
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** True when something accepts a TCP connection on 127.0.0.1:`port` (no request is sent). */
function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
