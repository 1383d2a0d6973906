import type { IncomingMessage } from 'node:http';
import { getConnInfo as nodeConnInfo } from '@hono/node-server/conninfo';
import { invalidOption } from '@tollgate/core';
import type { Context } from 'hono';
import type { GetConnInfo } from 'hono/conninfo';
import proxyAddr from 'proxy-addr';
import type { HonoAddressOptions, TrustProxy } from './options.js';

type Trust = (address: string, hop: number) => boolean;

/** Which hops to trust, as Express compiles its `trust proxy` setting; undefined when none is. */
function compileTrust(trustProxy: TrustProxy | undefined): Trust | undefined {
  if (trustProxy === undefined || trustProxy === false) return undefined;
  if (trustProxy === true) return () => true;
  if (typeof trustProxy === 'function') return trustProxy;
  if (typeof trustProxy === 'number') {
    if (Number.isInteger(trustProxy) && trustProxy >= 0) return (_address, hop) => hop < trustProxy;
  } else if (typeof trustProxy === 'string' || Array.isArray(trustProxy)) {
    const names = typeof trustProxy === 'string' ? trustProxy.split(',').map((name) => name.trim()) : trustProxy;
    try {
      return proxyAddr.compile(names as string[]);
    } catch (error) {
      throw invalidOption(
        'trustProxy',
        `names an address, CIDR or proxy-addr name it cannot read: ${(error as Error).message}`,
        trustProxy,
      );
    }
  }
  throw invalidOption(
    'trustProxy',
    'must be a boolean, a whole number of hops, addresses or CIDRs (a string or a list), or a function',
    trustProxy,
  );
}

/** `@hono/node-server`'s `getConnInfo`, with a coded error when the app is served another way. */
const nodeServerConnInfo: GetConnInfo = (c) => {
  const env = c.env as { incoming?: unknown; server?: { incoming?: unknown } } | undefined;
  if (env?.incoming === undefined && env?.server?.incoming === undefined) {
    throw invalidOption(
      'getConnInfo',
      "is required when the app is not served by @hono/node-server: pass the runtime's (hono/bun, hono/deno, ...)",
      undefined,
    );
  }
  return nodeConnInfo(c);
};

/**
 * What reads the client address of a request: the connection's (`getConnInfo`), or, when it is a
 * trusted proxy, the last address in `X-Forwarded-For` that is not one, as proxy-addr (Express's
 * `req.ip`) finds it.
 */
export function clientAddressReader({
  trustProxy,
  getConnInfo = nodeServerConnInfo,
}: HonoAddressOptions): (c: Context) => string | undefined {
  if (typeof getConnInfo !== 'function') throw invalidOption('getConnInfo', 'must be a function', getConnInfo);
  const trust = compileTrust(trustProxy);
  if (trust === undefined) return (c) => getConnInfo(c).remote.address;
  return (c) => {
    const remoteAddress = getConnInfo(c).remote.address;
    const forwarded = c.req.header('x-forwarded-for');
    if (remoteAddress === undefined || forwarded === undefined) return remoteAddress;
    // proxy-addr reads a Node request; these two fields are all it reads of one.
    const request = { socket: { remoteAddress }, headers: { 'x-forwarded-for': forwarded } };
    return proxyAddr(request as unknown as IncomingMessage, trust);
  };
}
