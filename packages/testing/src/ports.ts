import { createServer } from 'node:net';

/** True when nothing listens on 127.0.0.1:`port`. */
export function isPortFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/**
 * A free port p for which p + 10000 (the Redis Cluster bus port) is free too.
 * Starts from a random point so parallel test files rarely race for the same port.
 */
export async function findFreePort(): Promise<number> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const port = 20_000 + Math.floor(Math.random() * 35_000);
    if ((await isPortFree(port)) && (await isPortFree(port + 10_000))) return port;
  }
  throw new Error('no free TCP port found on 127.0.0.1');
}
