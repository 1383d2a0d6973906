import { isIPv6 } from 'node:net';
import { describeValue, TollgateError } from '../errors.js';
import { assertIdentity } from '../keys.js';
import { ADDRESS_PREFIX, type ClientAddress, UNKNOWN_ADDRESS } from './client-addresses.js';
import { ipIdentity } from './ip.js';

/** What an HTTP limiter stores a request under when its `key` function gives a key. */
export const KEY_PREFIX = 'key:';

/**
 * The identity (the key as stored) of what a user names a client by, for the keyed operations of
 * an HTTP limiter (`reset`, `peek`, `refund`...):
 * - `key:<k>` and `ip:<address>`, the identities themselves, as decision events report them;
 *   an address is normalised and grouped as the limiter groups requests (so an identity maps to
 *   itself);
 * - anything else is what the limiter's `key` function returns when it has one (`hasKeyFunction`),
 *   else a client address.
 * A user key that looks like an address, or starts with `ip:` or `key:`, is written `key:<it>`;
 * on a limiter with a key function, a client limited by its address (the key function returned
 * undefined) is written `ip:<address>`. Throws `ERR_TOLLGATE_INVALID_KEY` for an address that is not one.
 */
export function identityMapper(hasKeyFunction: boolean, clientOf: (ip: string) => ClientAddress, ipv6Subnet: number | false) {
  function addressIdentity(address: string, written: string): string {
    if (address === UNKNOWN_ADDRESS) return `${ADDRESS_PREFIX}${UNKNOWN_ADDRESS}`;
    const client = clientOf(address);
    if (client.address !== undefined) return client.identity;
    // An IPv6 identity already grouped: `<address>/<bits>`, as `ipIdentity` writes it (masked, so
    // not normalised again: the masked `0:0:0:0::` is a /64, not the unspecified address).
    const slash = address.lastIndexOf('/');
    const head = address.slice(0, slash).toLowerCase();
    if (slash > 0 && ipv6Subnet !== false && address.slice(slash + 1) === String(ipv6Subnet) && isIPv6(head)) {
      return `${ADDRESS_PREFIX}${ipIdentity(head, ipv6Subnet)}`;
    }
    const hint = hasKeyFunction ? `; a key of yours is written ${KEY_PREFIX}<key>` : ': this limiter limits clients by their address';
    throw new TollgateError('ERR_TOLLGATE_INVALID_KEY', `key ${describeValue(written)} is not a client address${hint}`, 'key');
  }

  return (key: string): string => {
    assertIdentity(key);
    if (key.startsWith(KEY_PREFIX)) return key;
    if (key.startsWith(ADDRESS_PREFIX)) return addressIdentity(key.slice(ADDRESS_PREFIX.length), key);
    return hasKeyFunction ? `${KEY_PREFIX}${key}` : addressIdentity(key, key);
  };
}
