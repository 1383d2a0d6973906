import { type ChildProcess, spawn } from 'node:child_process';

export interface NodeProcessOptions {
  cwd: string;
  /** Added to the parent's environment. */
  env?: Record<string, string | undefined>;
  /** Resolves once a line of stdout matches; its groups come back as `match`. */
  ready: RegExp;
  /** Default 20 s. */
  timeoutMs?: number;
}

/** A Node script running in a child process (e.g. an example server), with what it printed. */
export class NodeProcess {
  private constructor(
    private readonly child: ChildProcess,
    readonly match: RegExpMatchArray,
    private readonly output: () => string,
  ) {}

  /** Runs `node <args>` and waits until its stdout matches `ready`. */
  static start(args: string[], options: NodeProcessOptions): Promise<NodeProcess> {
    const child = spawn(process.execPath, args, { cwd: options.cwd, env: { ...process.env, ...options.env }, stdio: 'pipe' });
    let stdout = '';
    let stderr = '';
    let started = false;
    return new Promise((resolve, reject) => {
      const onExit = (code: number | null) => fail(`node ${args.join(' ')} exited with ${code}`);
      const fail = (reason: string) => {
        clearTimeout(timer);
        child.kill('SIGKILL');
        reject(new Error(`${reason}\nstdout:\n${stdout}\nstderr:\n${stderr}`));
      };
      const timer = setTimeout(() => fail(`node ${args.join(' ')} printed nothing matching ${options.ready}`), options.timeoutMs ?? 20_000);
      child.stderr?.on('data', (chunk) => (stderr += chunk));
      child.stdout?.on('data', (chunk) => {
        stdout += chunk;
        const match = started ? null : stdout.match(options.ready);
        if (match) {
          started = true;
          clearTimeout(timer);
          child.off('exit', onExit);
          resolve(new NodeProcess(child, match, () => stdout + stderr));
        }
      });
      child.once('exit', onExit);
    });
  }

  /** Resolves once what the process printed matches `pattern`; rejects when it exits first or after `timeoutMs` (default 20 s). */
  waitFor(pattern: RegExp, timeoutMs = 20_000): Promise<RegExpMatchArray> {
    const { child } = this;
    return new Promise((resolve, reject) => {
      const check = () => {
        const match = this.printed.match(pattern);
        if (match === null) return;
        settle();
        resolve(match);
      };
      const exited = (code: number | null) => {
        settle();
        reject(new Error(`the process exited with ${code} before printing ${pattern}:\n${this.printed}`));
      };
      const timer = setTimeout(() => {
        settle();
        reject(new Error(`nothing printed matched ${pattern} within ${timeoutMs} ms:\n${this.printed}`));
      }, timeoutMs);
      const settle = () => {
        clearTimeout(timer);
        child.stdout?.off('data', check);
        child.off('close', exited);
      };
      child.stdout?.on('data', check);
      // 'close' comes after the last output: nothing printed is missed.
      child.once('close', exited);
      check();
    });
  }

  /** Everything printed so far, stdout then stderr. */
  get printed(): string {
    return this.output();
  }

  async stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.kill('SIGTERM');
    await exited;
  }
}
