import type { Socket } from 'node:net';
import { hasRawField, rawFieldValue } from '@tollgate/core';
import type { Request } from 'express';

const FORWARDED_FOR = 'x-forwarded-for';
const FORWARDED = 'forwarded';

/** The app's compiled `trust proxy` setting, as Express keeps it (`trust proxy fn`). */
type Trust = (address: string | undefined, hop: number) => boolean;

/** Whether a connection's own address is a trusted proxy, by the trust function asked. */
const trustedSockets = new WeakMap<Socket, { trust: Trust; trusted: boolean }>();

/**
 * `req.ip`, without its getter: Express resolves `req.ip` with proxy-addr over the socket address
 * followed by the `X-Forwarded-For` addresses, nearest first, stopping at the first it does not
 * trust. Without the field that is the socket address whatever `trust proxy` says. With it, the
 * same walk is made here from the raw headers, asking the app's trust function of every hop but
 * the socket's, whose answer is kept per connection (its address never changes) unless the app
 * set a function of its own, which may answer anything any time. The getter builds `req.headers`
 * and parses the socket address with ipaddr.js on every request.
 */
export function clientAddress(req: Request): string | undefined {
  const { socket } = req;
  if (!socket) return req.ip;
  const forwardedFor = rawFieldValue(req.rawHeaders, FORWARDED_FOR);
  if (forwardedFor === undefined) return socket.remoteAddress;
  const app = req.app;
  const trust = app?.get('trust proxy fn') as Trust | undefined;
  if (typeof trust !== 'function') return req.ip;
  const socketTrusted = typeof app.get('trust proxy') === 'function' ? trust(socket.remoteAddress, 0) : trustedSocket(socket, trust);
  return socketTrusted ? (firstUntrusted(forwardedFor, trust) ?? socket.remoteAddress) : socket.remoteAddress;
}

function trustedSocket(socket: Socket, trust: Trust): boolean {
  const known = trustedSockets.get(socket);
  if (known?.trust === trust) return known.trusted;
  const trusted = trust(socket.remoteAddress, 0);
  trustedSockets.set(socket, { trust, trusted });
  return trusted;
}

/**
 * The client address behind a trusted socket: the `X-Forwarded-For` addresses from the nearest,
 * up to the first that `trust` does not trust, or the farthest; undefined when the field lists
 * none. The field is split as proxy-addr splits it (commas, with spaces around them dropped).
 */
function firstUntrusted(forwardedFor: string, trust: Trust): string | undefined {
  let hop = 1;
  let end = forwardedFor.length;
  let start = end;
  let last: string | undefined;
  for (let i = forwardedFor.length - 1; i >= -1; i--) {
    const code = i < 0 ? 0x2c : forwardedFor.charCodeAt(i);
    if (code === 0x20) {
      if (start === end) start = end = i;
    } else if (code === 0x2c) {
      if (start !== end) {
        if (last !== undefined && !trust(last, hop++)) return last;
        last = forwardedFor.substring(start, end);
      }
      start = end = i;
    } else {
      start = i;
    }
  }
  return last;
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
    if (!hasRawField(req.rawHeaders, FORWARDED_FOR) && !hasRawField(req.rawHeaders, FORWARDED)) return;
    warned = true;
    untrustedProxy();
  };
}
