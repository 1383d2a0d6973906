import { parseList } from 'structured-headers';
import { describe, expect, it } from 'vitest';
import { mergeRateLimitHeaders, rateLimitMemberNames, withoutRateLimitMembers } from '../../src/index.js';

/** A response's header lookup: names are case-insensitive. */
const onResponse =
  (fields: Record<string, string>) =>
  (name: string): string | undefined =>
    Object.entries(fields).find(([field]) => field.toLowerCase() === name.toLowerCase())?.[1];

describe('mergeRateLimitHeaders', () => {
  it('returns the headers as they are on a response without RateLimit fields', () => {
    const headers: [string, string][] = [
      ['RateLimit-Policy', '"default";q=5;w=60'],
      ['RateLimit', '"default";r=4;t=12'],
    ];
    expect(mergeRateLimitHeaders(headers, onResponse({}))).toBe(headers);
  });

  it('appends the new members to the fields already set, renaming a clashing name in both fields', () => {
    const merged = mergeRateLimitHeaders(
      [
        ['RateLimit-Policy', '"default";q=2;w=1, "1d";q=1000;w=86400'],
        ['RateLimit', '"default";r=1;t=1, "1d";r=999;t=87'],
        ['Retry-After', '1'],
      ],
      onResponse({ 'RateLimit-Policy': '"default";q=100;w=60', RateLimit: '"default";r=99;t=1' }),
    );
    expect(merged).toEqual([
      ['RateLimit-Policy', '"default";q=100;w=60, "default-2";q=2;w=1, "1d";q=1000;w=86400'],
      ['RateLimit', '"default";r=99;t=1, "default-2";r=1;t=1, "1d";r=999;t=87'],
      ['Retry-After', '1'],
    ]);
    for (const [, value] of merged.slice(0, 2)) expect(parseList(value)).toHaveLength(3);
  });

  it('picks the next free suffix, and keeps quoted parameters with commas whole', () => {
    const merged = mergeRateLimitHeaders(
      [
        ['RateLimit-Policy', '"api";q=2;w=1;note="a, b"'],
        ['RateLimit', '"api";r=1;t=1'],
      ],
      onResponse({ 'RateLimit-Policy': '"api";q=9;w=60, "api-2";q=5;w=1', RateLimit: '"api";r=8;t=7, "api-2";r=4;t=1' }),
    );
    expect(merged).toEqual([
      ['RateLimit-Policy', '"api";q=9;w=60, "api-2";q=5;w=1, "api-3";q=2;w=1;note="a, b"'],
      ['RateLimit', '"api";r=8;t=7, "api-2";r=4;t=1, "api-3";r=1;t=1'],
    ]);
  });
});

describe('rateLimitMemberNames and withoutRateLimitMembers', () => {
  const policy = '"default";q=100;w=60, "a,b";q=2;w=1, "1d";q=1000;w=86400';

  it('names the members of a list, quoted commas included', () => {
    expect(rateLimitMemberNames(policy)).toEqual(['default', 'a,b', '1d']);
    expect(rateLimitMemberNames(undefined)).toEqual([]);
  });

  it('takes the named members away and keeps the others in order', () => {
    expect(withoutRateLimitMembers(policy, new Set(['a,b']))).toBe('"default";q=100;w=60, "1d";q=1000;w=86400');
    expect(withoutRateLimitMembers(policy, new Set(['default', 'a,b', '1d']))).toBeUndefined();
    expect(withoutRateLimitMembers(policy, new Set())).toBe(policy);
    expect(withoutRateLimitMembers(undefined, new Set(['default']))).toBeUndefined();
  });
});
