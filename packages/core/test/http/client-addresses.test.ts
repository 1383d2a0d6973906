import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { clientAddresses } from '../../src/http/client-addresses.js';
import { ipIdentity, normaliseIp } from '../../src/index.js';

/** What a client address is without remembering: normalised, then its identity. */
function direct(ip: string, subnet: number | false) {
  const address = normaliseIp(ip);
  const key = address === undefined ? 'unknown' : ipIdentity(address, subnet);
  return { address, identity: `ip:${key}`, key };
}

const rawAddress = fc.oneof(
  fc.ipV4(),
  fc.ipV6(),
  fc.ipV4().map((ip) => `::ffff:${ip}`),
  fc.string({ maxLength: 12 }),
);

describe('clientAddresses', () => {
  it('answers as normalising every time would, for addresses seen again, in another spelling, or never seen', () => {
    fc.assert(
      fc.property(
        fc.array(rawAddress, { minLength: 1, maxLength: 40 }),
        fc.constantFrom<number | false>(64, 48, 128, false),
        (ips, subnet) => {
          const clientOf = clientAddresses(subnet);
          // Each address twice, the second time from the memory.
          for (const ip of [...ips, ...ips]) expect(clientOf(ip)).toEqual(direct(ip, subnet));
        },
      ),
    );
  });

  it('keeps answering right past the most it remembers', () => {
    const clientOf = clientAddresses(64);
    const ips = Array.from({ length: 3000 }, (_, i) => `10.${i >> 8}.${i & 0xff}.1`);
    for (const ip of [...ips, ...ips.reverse()]) expect(clientOf(ip)).toEqual(direct(ip, 64));
  });

  it('gives one identity to the spellings of one address, and ip:unknown to a request without one', () => {
    const clientOf = clientAddresses(64);
    expect(clientOf('::ffff:203.0.113.7').identity).toBe('ip:203.0.113.7');
    expect(clientOf('203.0.113.7').identity).toBe('ip:203.0.113.7');
    expect(clientOf('2001:db8::1').identity).toBe('ip:2001:db8:0:0::/64');
    expect(clientOf('2001:DB8::2').identity).toBe('ip:2001:db8:0:0::/64');
    expect(clientOf('2001:DB8::2').key).toBe('2001:db8:0:0::/64');
    expect(clientOf(undefined)).toEqual({ address: undefined, identity: 'ip:unknown', key: 'unknown' });
    expect(clientOf('not an address')).toEqual({ address: undefined, identity: 'ip:unknown', key: 'unknown' });
    const zoned = `fe80::1%${'z'.repeat(100)}`;
    expect(clientOf(zoned)).toEqual(direct(zoned, 64));
    expect(clientOf(zoned)).toEqual(direct(zoned, 64));
  });
});
