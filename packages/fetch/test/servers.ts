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
