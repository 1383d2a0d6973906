import type { Request } from 'express';

/**
 * `req.ip`, without its getter when the answer is known: Express resolves `req.ip` with
 * proxy-addr over the socket address followed by the `X-Forwarded-For` addresses, so with no
 * (or an empty) `X-Forwarded-For` it is the socket address whatever `trust proxy` says. The
 * getter looks up the app's settings and builds that list on every request.
 */
export function clientAddress(req: Request, headers: Request['headers']): string | undefined {
  const { socket } = req;
  if (!headers['x-forwarded-for'] && socket) return socket.remoteAddress;
  return req.ip;
}
