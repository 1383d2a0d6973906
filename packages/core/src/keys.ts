import { createHash } from 'node:crypto';
import { describeValue, TollgateError } from './errors.js';

/** Identities longer than this are stored as a digest, so a client cannot make keys huge. */
export const MAX_IDENTITY_LENGTH = 200;
const UNSAFE_ALL = /[{}%#]/g;
const PREFIX_PATTERN = /^[^{}\s]{1,64}$/;

/**
 * Makes an identity safe inside a Redis hash tag: braces (which would let a client pick
 * the cluster slot), '%' and '#' are percent-escaped; over-long identities become
 * `#<sha256>` ('#' never survives escaping, so a digest cannot equal a raw identity).
 */
export function encodeIdentity(identity: string): string {
  if (identity.length > MAX_IDENTITY_LENGTH) {
    return `#${createHash('sha256').update(identity).digest('base64url')}`;
  }
  if (!hasUnsafeCharacter(identity)) return identity;
  return identity.replace(UNSAFE_ALL, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** A plain loop: on the hot path of every decision, cheaper than a regular expression. */
function hasUnsafeCharacter(identity: string): boolean {
  for (let i = 0; i < identity.length; i++) {
    const code = identity.charCodeAt(i);
    // { } % #
    if (code === 123 || code === 125 || code === 37 || code === 35) return true;
  }
  return false;
}

export function assertIdentity(identity: unknown): asserts identity is string {
  if (typeof identity !== 'string' || identity.length === 0) {
    throw new TollgateError('ERR_TOLLGATE_INVALID_KEY', `key must be a non-empty string (got ${describeValue(identity)})`, 'key');
  }
}

export function assertPrefix(prefix: unknown): asserts prefix is string {
  if (typeof prefix !== 'string' || !PREFIX_PATTERN.test(prefix)) {
    throw new TollgateError(
      'ERR_TOLLGATE_INVALID_OPTION',
      `prefix must be 1-64 characters without braces or spaces (got ${describeValue(prefix)})`,
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
}

export function keyspacesFor(prefix: string, suffixes: readonly string[]): Keyspace[] {
  return suffixes.map((suffix) => ({ head: `${prefix}:{`, tail: `}:${suffix}`, id: `${prefix}:{}:${suffix}` }));
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
