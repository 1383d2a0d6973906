import { fork } from 'node:child_process';

/**
 * Forks `count` workers of `worker` with `args`, waits until each says it is ready (its first
 * message), releases them together with 'go', and resolves with each one's next message. A worker
 * that exits with an error fails the whole run.
 */
export async function releasedTogether<T>(worker: string, args: readonly string[], count: number): Promise<T[]> {
  const workers = Array.from({ length: count }, () => fork(worker, [...args], { execArgv: ['--import', 'tsx'], stdio: 'inherit' }));
  const exitedEarly = (child: ReturnType<typeof fork>) =>
    new Promise<never>((_, reject) => child.once('exit', (code) => code !== 0 && reject(new Error(`worker exited with ${code}`))));
  const failures = Promise.race(workers.map(exitedEarly));
  await Promise.race([failures, Promise.all(workers.map((child) => new Promise((resolve) => child.once('message', resolve))))]);
  const results = workers.map(
    (child) =>
      new Promise<T>((resolve, reject) => {
        child.once('message', (message: T) => resolve(message));
        failures.catch(reject);
      }),
  );
  for (const child of workers) child.send('go');
  return Promise.all(results);
}
