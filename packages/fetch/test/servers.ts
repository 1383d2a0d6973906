import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request as the server saw it. */
export interface Arrival {
  at: number;
  from: string | undefined;
  status: number;
}

/** A real HTTP server on a free loopback port that logs every request it answers. */
export interface TestServer {
  url: string;
  arrivals: Arrival[];
  close(): Promise<void>;
}

export async function startServer(answer: (req: IncomingMessage, res: ServerResponse, count: number) => void): Promise<TestServer> {
  const arrivals: Arrival[] = [];
  const server: Server = createServer((req, res) => {
    res.on('finish', () => arrivals.push({ at, from: req.headers['x-worker'] as string | undefined, status: res.statusCode }));
    const at = Date.now();
    answer(req, res, arrivals.length + 1);
  });
  return listen(server, arrivals);
}

export async function listen(server: Server, arrivals: Arrival[] = []): Promise<TestServer> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    arrivals,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** An upstream that answers its first request with a 429 and `Retry-After: pauseSeconds`, then counts who ignores it. */
export interface PausingUpstream extends TestServer {
  /** When the 429 went out (epoch ms). */
  pausedAt(): number;
  /** Requests that arrived while the upstream's pause ran (each was answered 429 again). */
  hitsWhilePaused(): Arrival[];
}

export async function startPausingUpstream(pauseSeconds: number): Promise<PausingUpstream> {
  let pausedAt = 0;
  let requests = 0;
  const pauseEnd = () => pausedAt + pauseSeconds * 1000;
  const server = await startServer((_req, res) => {
    if (++requests === 1) {
      res.on('finish', () => (pausedAt = Date.now()));
      res.writeHead(429, { 'Retry-After': String(pauseSeconds) }).end();
    } else if (Date.now() < pauseEnd()) {
      res.writeHead(429, { 'Retry-After': String(Math.ceil((pauseEnd() - Date.now()) / 1000)) }).end();
    } else {
      res.writeHead(200).end('ok');
    }
  });
  return {
    ...server,
    pausedAt: () => pausedAt,
    hitsWhilePaused: () => server.arrivals.slice(1).filter((arrival) => arrival.at >= pausedAt && arrival.at < pauseEnd()),
  };
}
