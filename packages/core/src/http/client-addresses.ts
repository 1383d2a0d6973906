import { ipIdentity, normaliseIp } from './ip.js';

/** A client address as an HTTP limiter uses it. */
export interface ClientAddress {
  /** Normalised (see `normaliseIp`); undefined when the request has no usable address. */
  readonly address: string | undefined;
  /** What the client is limited under by default: `ip:<key>`. */
  readonly identity: string;
  /** The address, or its IPv6 subnet (`2001:db8:0:1::/64`), or `unknown`: what the request is told it was counted under. */
  readonly key: string;
}

/** What an HTTP limiter stores a request under when it is limited by its client address: `ip:<address>`. */
export const ADDRESS_PREFIX = 'ip:';
/** The address of requests without a usable one: they share `ip:unknown`. */
export const UNKNOWN_ADDRESS = 'unknown';
/** Requests whose client address is unknown (socket already gone, not an IP) share this identity. */
const UNKNOWN: ClientAddress = { address: undefined, identity: `${ADDRESS_PREFIX}${UNKNOWN_ADDRESS}`, key: UNKNOWN_ADDRESS };
/** Addresses remembered at most; all are forgotten at once when full, so no order is kept. */
const REMEMBERED = 1024;
/** The longest address text remembered (IPv6 with an IPv4 tail): a client cannot make it hold long strings. */
const LONGEST_REMEMBERED = 45;

/**
 * The client address of a request from its raw address, remembering the last ones seen: a client
 * comes back (on its keep-alive connection, or through the same proxy), and normalising costs a
 * regular expression and new strings on every request. The identity is then the same string
 * every time, so the store finds its entry by a hash already computed.
 */
export function clientAddresses(ipv6Subnet: number | false): (ip: string | undefined) => ClientAddress {
  const remembered = new Map<string, ClientAddress>();
  return (ip) => {
    if (ip === undefined) return UNKNOWN;
    let client = remembered.get(ip);
    if (client === undefined) {
      const address = normaliseIp(ip);
      client = address === undefined ? UNKNOWN : addressOf(address, ipIdentity(address, ipv6Subnet));
      if (ip.length <= LONGEST_REMEMBERED) {
        if (remembered.size === REMEMBERED) remembered.clear();
        remembered.set(ip, client);
      }
    }
    return client;
  };
}

function addressOf(address: string, key: string): ClientAddress {
  return { address, identity: `${ADDRESS_PREFIX}${key}`, key };
}
