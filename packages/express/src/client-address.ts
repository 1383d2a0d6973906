import type { Request } from 'express';

const FORWARDED_FOR = 'x-forwarded-for';

/**
 * `req.ip`, without its getter when the answer is known: Express resolves `req.ip` with
 * proxy-addr over the socket address followed by the `X-Forwarded-For` addresses, so without an
 * `X-Forwarded-For` field it is the socket address whatever `trust proxy` says. The getter looks
 * up the app's settings and builds that list on every request. The field is looked for in
 * `rawHeaders`, a plain array, rather than through the `headers` getter.
 */
export function clientAddress(req: Request): string | undefined {
  const { socket } = req;
  if (socket && !hasForwardedFor(req.rawHeaders)) return socket.remoteAddress;
  return req.ip;
}

/** Whether a field named X-Forwarded-For (in any case, even empty) is among the raw headers. */
function hasForwardedFor(rawHeaders: readonly string[]): boolean {
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!;
    if (name.length === FORWARDED_FOR.length && name.toLowerCase() === FORWARDED_FOR) return true;
  }
  return false;
}
