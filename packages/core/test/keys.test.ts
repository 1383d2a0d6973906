import { createHash } from 'node:crypto';
import calculateSlot from 'cluster-key-slot';
import { describe, expect, it } from 'vitest';
import { encodeIdentity, MAX_IDENTITY_LENGTH } from '../src/index.js';
import { keyspacesFor, storageKey } from '../src/keys.js';

const storageKeys = (prefix: string, identity: string, suffixes: string[]) =>
  keyspacesFor(prefix, suffixes).map((keyspace) => storageKey(keyspace, encodeIdentity(identity)));

describe('storage keys', () => {
  it('have the shape <prefix>:{<identity>}:<limit>', () => {
    expect(storageKeys('api', '203.0.113.7', ['default:gcra'])).toEqual(['api:{203.0.113.7}:default:gcra']);
  });

  it('put every limit of one identity in the same hash slot', () => {
    const keys = storageKeys('api', 'user-42', ['second:gcra', 'minute:fixed-window', 'day:gcra']);
    expect(new Set(keys.map((key) => calculateSlot(key))).size).toBe(1);
  });

  it('do not let an identity choose its hash slot or break out of the tag', () => {
    const hostile = 'x}{chosen-slot';
    const [key] = storageKeys('api', hostile, ['default:gcra']);
    expect(key).toBe('api:{x%7D%7Bchosen-slot}:default:gcra');
    expect(calculateSlot(key!)).toBe(calculateSlot('x%7D%7Bchosen-slot'));
    expect(calculateSlot(key!)).not.toBe(calculateSlot('chosen-slot'));
  });

  it('keep escaped and unescaped identities distinct', () => {
    expect(encodeIdentity('a%7Db')).not.toBe(encodeIdentity('a}b'));
    expect(encodeIdentity('#abc')).toBe('%23abc');
  });

  it('escape lone surrogates, which UTF-8 would turn into one U+FFFD, and keep pairs as they are', () => {
    expect(encodeIdentity('a\uD800b')).toBe('a%D800b');
    expect(encodeIdentity('\uDBFF')).toBe('%DBFF');
    expect(encodeIdentity('\uDC00\uD800')).toBe('%DC00%D800');
    expect(encodeIdentity('😀{')).toBe('😀%7B');
  });

  it('digest well-formed long identities as UTF-8, so their keys stay where they were', () => {
    const long = `${'k'.repeat(MAX_IDENTITY_LENGTH)}😀`;
    expect(encodeIdentity(long)).toBe(`#${createHash('sha256').update(long).digest('base64url')}`);
  });

  it('are bounded in length: long identities become a digest', () => {
    const long = 'k'.repeat(10_000);
    const encoded = encodeIdentity(long);
    expect(encoded.length).toBeLessThan(50);
    expect(encoded.startsWith('#')).toBe(true);
    expect(encodeIdentity(`${long}x`)).not.toBe(encoded);
    expect(encodeIdentity('k'.repeat(MAX_IDENTITY_LENGTH))).toBe('k'.repeat(MAX_IDENTITY_LENGTH));
  });
});
