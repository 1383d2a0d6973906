import { BlockList, isIPv4 } from 'node:net';
import { describeValue, TollgateError } from '../errors.js';
import { normaliseIp } from './ip.js';

/** Compiles `allowList` (IPs and CIDRs, v4 and v6) into a matcher of normalised addresses. */
export function compileAllowList(entries: unknown): ((address: string) => boolean) | undefined {
  if (entries === undefined) return undefined;
  if (!Array.isArray(entries)) {
    throw new TollgateError(
      'ERR_TOLLGATE_INVALID_OPTION',
      `allowList must be an array of IPs or CIDRs (got ${describeValue(entries)})`,
      'allowList',
    );
  }
  if (entries.length === 0) return undefined;
  const list = new BlockList();
  for (const [i, entry] of entries.entries()) addEntry(list, entry, `allowList[${i}]`);
  return (address) => list.check(address, isIPv4(address) ? 'ipv4' : 'ipv6');
}

function addEntry(list: BlockList, entry: unknown, field: string): void {
  const fail = () =>
    new TollgateError(
      'ERR_TOLLGATE_INVALID_OPTION',
      `${field} must be an IP or a CIDR such as 10.0.0.0/8 (got ${describeValue(entry)})`,
      field,
    );
  if (typeof entry !== 'string') throw fail();
  const [rawAddress = '', rawPrefix, extra] = entry.trim().split('/');
  const address = normaliseIp(rawAddress);
  if (address === undefined || extra !== undefined) throw fail();
  const type = isIPv4(address) ? 'ipv4' : 'ipv6';
  if (rawPrefix === undefined) {
    list.addAddress(address, type);
    return;
  }
  const prefix = Number(rawPrefix);
  // An IPv4-mapped CIDR (::ffff:10.0.0.0/104) counts its prefix over 128 bits.
  const mappedOffset = type === 'ipv4' && rawAddress.includes(':') ? 96 : 0;
  const bits = prefix - mappedOffset;
  if (!/^\d{1,3}$/.test(rawPrefix) || bits < 0 || bits > (type === 'ipv4' ? 32 : 128)) throw fail();
  list.addSubnet(address, bits, type);
}
