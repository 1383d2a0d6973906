import type { ServerResponse } from 'node:http';

/** Answers with `body` as plain text unless the answer has begun; a HEAD request gets the headers alone. */
export function send(res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}): void {
  if (res.headersSent) return;
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', ...headers, 'content-length': Buffer.byteLength(body) });
  res.end(res.req.method === 'HEAD' ? undefined : body);
}
