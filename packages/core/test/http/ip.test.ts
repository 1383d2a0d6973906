import { describe, expect, it } from 'vitest';
import { ipv6Groups } from '../../src/http/ip.js';
import { ipIdentity, normaliseIp } from '../../src/index.js';

describe('normaliseIp', () => {
  it('keeps IPv4 as is', () => {
    expect(normaliseIp('203.0.113.7')).toBe('203.0.113.7');
  });

  it('turns IPv4-mapped IPv6 into IPv4, in dotted and in hex notation', () => {
    expect(normaliseIp('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(normaliseIp('::FFFF:203.0.113.7')).toBe('203.0.113.7');
    expect(normaliseIp('::ffff:cb00:7107')).toBe('203.0.113.7');
    expect(normaliseIp('0:0:0:0:0:ffff:cb00:7107')).toBe('203.0.113.7');
  });

  it('turns IPv4-compatible IPv6 (deprecated, ::a.b.c.d) into the IPv4 it embeds', () => {
    expect(normaliseIp('::1.2.3.4')).toBe('1.2.3.4');
    expect(normaliseIp('::5.6.7.8')).toBe('5.6.7.8');
    expect(normaliseIp('::102:304')).toBe('1.2.3.4');
    expect(normaliseIp('0:0:0:0:0:0:cb00:7107')).toBe('203.0.113.7');
  });

  it('keeps loopback and the unspecified address as themselves, in any spelling', () => {
    expect(normaliseIp('::1')).toBe('::1');
    expect(normaliseIp('0:0:0:0:0:0:0:1')).toBe('::1');
    expect(normaliseIp('::')).toBe('::');
    expect(normaliseIp('0:0::0')).toBe('::');
    expect(normaliseIp('::ffff:0.0.0.1')).toBe('0.0.0.1');
  });

  it('lower-cases IPv6 and drops a zone index', () => {
    expect(normaliseIp('2001:DB8::1')).toBe('2001:db8::1');
    expect(normaliseIp('fe80::1%eth0')).toBe('fe80::1');
  });

  it('rejects what is not an address', () => {
    expect(normaliseIp('not-an-ip')).toBeUndefined();
    expect(normaliseIp('')).toBeUndefined();
    expect(normaliseIp('1.2.3.4.5')).toBeUndefined();
  });
});

describe('ipv6Groups', () => {
  it('expands every notation into eight groups', () => {
    expect(ipv6Groups('::')).toEqual([0, 0, 0, 0, 0, 0, 0, 0]);
    expect(ipv6Groups('::1')).toEqual([0, 0, 0, 0, 0, 0, 0, 1]);
    expect(ipv6Groups('2001:db8::')).toEqual([0x2001, 0xdb8, 0, 0, 0, 0, 0, 0]);
    expect(ipv6Groups('2001:db8:1:2:3:4:5:6')).toEqual([0x2001, 0xdb8, 1, 2, 3, 4, 5, 6]);
    expect(ipv6Groups('64:ff9b::192.0.2.33')).toEqual([0x64, 0xff9b, 0, 0, 0, 0, 0xc000, 0x0221]);
  });
});

describe('ipIdentity', () => {
  it('groups IPv6 addresses by their /64 by default', () => {
    const a = ipIdentity('2001:db8:85a3:42:1111:2222:3333:4444', 64);
    const b = ipIdentity('2001:db8:85a3:42::9', 64);
    const other = ipIdentity('2001:db8:85a3:43::9', 64);
    expect(a).toBe('2001:db8:85a3:42::/64');
    expect(b).toBe(a);
    expect(other).not.toBe(a);
  });

  it('masks partial groups for prefixes that are not a multiple of 16', () => {
    expect(ipIdentity('2001:db8:85ff::1', 40)).toBe('2001:db8:8500::/40');
    expect(ipIdentity('2001:db8::1', 128)).toBe('2001:db8:0:0:0:0:0:1/128');
  });

  it('gives the addresses of ::/96 identities of their own, not one shared /64', () => {
    const identities = ['::1.2.3.4', '::5.6.7.8', '::ffff:1.2.3.4', '::1', '::'].map((a) => ipIdentity(normaliseIp(a)!, 64));
    expect(identities).toEqual(['1.2.3.4', '5.6.7.8', '1.2.3.4', '::1', '::']);
    expect(ipIdentity(normaliseIp('::2:0:0')!, 64)).toBe('0:0:0:0::/64');
  });

  it('keeps the whole address when grouping is off, and IPv4 always', () => {
    expect(ipIdentity('2001:db8::1', false)).toBe('2001:db8::1');
    expect(ipIdentity('203.0.113.7', 64)).toBe('203.0.113.7');
  });
});
