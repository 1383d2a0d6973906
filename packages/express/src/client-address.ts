import type { Request } from 'express';

const FORWARDED_FOR = 'x-forwarded-for';
const FORWARDED = 'forwarded';

/**
 * `req.ip`, without its getter when the answer is known: Express resolves `req.ip` with
 * proxy-addr over the socket address followed by the `X-Forwarded-For` addresses, so without an
 * `X-Forwarded-For` field it is the socket address whatever `trust proxy` says. The getter looks
 * up the app's settings and builds that list on every request. The field is looked for in
 * `rawHeaders`, a plain array, rather than through the `headers` getter.
 */
export function clientAddress(req: Request): string | undefined {
  const { socket } = req;
  if (socket && !hasField(req.rawHeaders, FORWARDED_FOR)) return socket.remoteAddress;
  return req.ip;
}

/**
 * Calls `untrustedProxy` for the first request naming its client in `X-Forwarded-For` or
 * `Forwarded` while the app sets no `trust proxy`, then never again; undefined without one.
 */
export function proxyCheck(untrustedProxy: (() => void) | undefined): ((req: Request) => void) | undefined {
  if (untrustedProxy === undefined) return undefined;
  let warned = false;
  return (req) => {
    if (warned || req.app?.get('trust proxy')) return;
    if (!hasField(req.rawHeaders, FORWARDED_FOR) && !hasField(req.rawHeaders, FORWARDED)) return;
    warned = true;
    untrustedProxy();
  };
}

/**
 * Whether a field named `lowerName` (in any case, even empty) is among the raw headers; a request
 * object built by hand (as in express-rate-limit's own tests) may have none.
 */
function hasField(rawHeaders: readonly string[] | undefined, lowerName: string): boolean {
  if (rawHeaders === undefined) return false;
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!;
    if (name.length === lowerName.length && name.toLowerCase() === lowerName) return true;
  }
  return false;
}
