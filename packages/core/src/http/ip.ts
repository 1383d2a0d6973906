import { isIPv4, isIPv6 } from 'node:net';

const MAPPED_PREFIX = '::ffff:';
const LOOPBACK = '::1';
const UNSPECIFIED = '::';

/**
 * The address as one canonical string. Undefined when not an IP. Within `::/96`, where the
 * first 96 bits are zero:
 * - IPv4-mapped (`::ffff:203.0.113.7`, in either notation) and the deprecated IPv4-compatible
 *   form (`::203.0.113.7`) are the IPv4 host they embed, so they count as that IPv4 address;
 * - loopback `::1` and unspecified `::` are themselves (one host each, never an IPv4 address).
 * A zone index (`fe80::1%eth0`) is dropped; other IPv6 is lower-cased.
 */
export function normaliseIp(address: string): string | undefined {
  if (isIPv4(address)) return address;
  const zone = address.indexOf('%');
  const bare = zone === -1 ? address : address.slice(0, zone);
  if (!isIPv6(bare)) return undefined;
  const lower = bare.toLowerCase();
  if (lower.startsWith(MAPPED_PREFIX) && isIPv4(lower.slice(MAPPED_PREFIX.length))) return lower.slice(MAPPED_PREFIX.length);
  const groups = ipv6Groups(lower);
  if (!groups.slice(0, 5).every((g) => g === 0) || (groups[5] !== 0 && groups[5] !== 0xffff)) return lower;
  const [mapped, high, low] = [groups[5] === 0xffff, groups[6]!, groups[7]!];
  if (!mapped && high === 0 && low <= 1) return low === 0 ? UNSPECIFIED : LOOPBACK;
  return `${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}`;
}

/**
 * The identity an address is limited under: IPv4 as is, IPv6 reduced to its first `subnet`
 * bits (a /64 is what one customer line usually gets, so a client cannot rotate through it),
 * or the whole address when `subnet` is false. Loopback `::1` and `::` stay whole: each is
 * one host, not a customer's /64. `address` must already be normalised.
 */
export function ipIdentity(address: string, subnet: number | false): string {
  if (subnet === false || !address.includes(':') || address === LOOPBACK || address === UNSPECIFIED) return address;
  const groups = ipv6Groups(address);
  const kept = Math.ceil(subnet / 16);
  const masked = groups.slice(0, kept).map((group, i) => {
    const bits = Math.min(16, subnet - i * 16);
    return (group & ((0xffff << (16 - bits)) & 0xffff)).toString(16);
  });
  return `${masked.join(':')}${kept < 8 ? '::' : ''}/${subnet}`;
}

/** The eight 16-bit groups of a valid IPv6 address (with or without an embedded IPv4 tail). */
export function ipv6Groups(address: string): number[] {
  let text = address;
  const lastColon = text.lastIndexOf(':');
  const last = text.slice(lastColon + 1);
  if (last.includes('.')) {
    const [a, b, c, d] = last.split('.').map(Number) as [number, number, number, number];
    text = `${text.slice(0, lastColon + 1)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', rest] = text.split('::');
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((group) => Number.parseInt(group, 16)));
  const front = parse(head);
  if (rest === undefined) return front;
  const back = parse(rest);
  return [...front, ...new Array<number>(8 - front.length - back.length).fill(0), ...back];
}
