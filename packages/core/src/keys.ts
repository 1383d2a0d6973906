import { createHash } from 'node:crypto';
import { describeValue, TollgateError } from './errors.js';

/** Identities longer than this are stored as a digest, so a client cannot make keys huge. */
export const MAX_IDENTITY_LENGTH = 200;
/** With the `u` flag this range matches lone surrogates only, never half of a pair. */
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;
const UNSAFE_ALL = /[{}%#]|[\uD800-\uDFFF]/gu;
/** Never part of UTF-8: marks the digest input of an identity that is not well-formed UTF-16. */
const NOT_UTF8 = Buffer.from([0xff]);
/** No spaces; braces only around one non-empty hash tag (`{jobs}:tenant`). */
const PREFIX_PATTERN = /^[^{}\s]*(?:\{[^{}\s]+\}[^{}\s]*)?$/;
const PREFIX_MAX_LENGTH = 128;

/**
 * Makes an identity safe inside a Redis hash tag, and the same key in every store: braces
 * (which would let a client pick the cluster slot), '%' and '#' become `%7B`-style escapes,
 * and so do lone UTF-16 surrogates (`%D800`), which UTF-8 — so Redis — would otherwise
 * turn into one U+FFFD. Over-long identities become `#<sha256>` ('#' never survives
 * escaping, so a digest cannot equal a raw identity).
 */
export function encodeIdentity(identity: string): string {
  if (identity.length > MAX_IDENTITY_LENGTH) return `#${digest(identity)}`;
  if (!hasUnsafeCharacter(identity)) return identity;
  return identity.replace(UNSAFE_ALL, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** SHA-256 in base64url: of the UTF-8 bytes, or, for a string with lone surrogates, of its UTF-16 code units. */
export function digest(identity: string): string {
  const hash = createHash('sha256');
  if (LONE_SURROGATE.test(identity)) hash.update(NOT_UTF8).update(Buffer.from(identity, 'utf16le'));
  else hash.update(identity);
  return hash.digest('base64url');
}

/** A plain loop: on the hot path of every decision, cheaper than a regular expression. */
function hasUnsafeCharacter(identity: string): boolean {
  for (let i = 0; i < identity.length; i++) {
    const code = identity.charCodeAt(i);
    // { } % # or half of a surrogate pair (escaped when it is alone)
    if (code === 123 || code === 125 || code === 37 || code === 35 || (code >= 0xd800 && code <= 0xdfff)) return true;
  }
  return false;
}

export function assertIdentity(identity: unknown): asserts identity is string {
  if (typeof identity !== 'string' || identity.length === 0) {
    throw new TollgateError('ERR_TOLLGATE_INVALID_KEY', `key must be a non-empty string (got ${describeValue(identity)})`, 'key');
  }
}

export function assertPrefix(prefix: unknown): asserts prefix is string {
  if (typeof prefix !== 'string' || prefix.length === 0 || prefix.length > PREFIX_MAX_LENGTH || !PREFIX_PATTERN.test(prefix)) {
    throw new TollgateError(
      'ERR_TOLLGATE_INVALID_OPTION',
      `prefix must be 1-128 characters without spaces, with braces only around one hash tag such as {jobs} (got ${describeValue(prefix)})`,
      'prefix',
    );
  }
}

/**
 * Where one limit of one limiter keeps its state. A storage key is `head + identity + tail`,
 * i.e. `<prefix>:{<identity>}:<limit>:<algorithm>`: every key of one decision shares a hash slot.
 * Built once per limiter; the memory store files its entries under the keyspace's `id`.
 */
export interface Keyspace {
  readonly head: string;
  readonly tail: string;
  /**
   * `head + tail`: equal for limiters that share a prefix and limit, so they share state in every
   * store (a multi-limit rule's limits are kept together: limiters then share them when they share the rule).
   */
  readonly id: string;
  /**
   * The hash tag of the prefix (`jobs` of `{jobs}:tenant`): Redis then hashes every key of the
   * limiter by it, so they all share one Cluster slot. Absent, each identity tags its own keys.
   */
  readonly hashTag?: string;
}

export function keyspacesFor(prefix: string, suffixes: readonly string[]): Keyspace[] {
  const hashTag = /\{([^{}]+)\}/.exec(prefix)?.[1];
  return suffixes.map((suffix) => ({
    head: `${prefix}:{`,
    tail: `}:${suffix}`,
    id: `${prefix}:{}:${suffix}`,
    ...(hashTag ? { hashTag } : {}),
  }));
}

/** What Redis hashes the keys of an operation by (its slot on a Cluster): the prefix's hash tag, else the identity. */
export function hashTagOf(keyspaces: readonly Keyspace[], identity: string): string {
  return keyspaces[0]?.hashTag ?? identity;
}

/** The storage key of an (already encoded) identity in a keyspace. */
export function storageKey(keyspace: Keyspace, identity: string): string {
  return keyspace.head + identity + keyspace.tail;
}

/**
 * The one keyspace holding the states of several limits of a rule, read and written together:
 * `<prefix>:{<identity>}:<limit>:<algorithm>+<limit>:<algorithm>…` (limit names never hold '+').
 * A single keyspace is its own packed keyspace, so a one-limit rule keeps its key.
 */
export function packedKeyspace(keyspaces: readonly Keyspace[]): Keyspace {
  if (keyspaces.length === 1) return keyspaces[0]!;
  const suffixes = keyspaces.map((keyspace) => keyspace.tail.slice('}:'.length));
  const tail = `}:${suffixes.join('+')}`;
  const { head } = keyspaces[0]!;
  return { head, tail, id: head + tail };
}
