import { createHash } from 'node:crypto';
import { describeValue, TollgateError } from './errors.js';

/** Identities longer than this are stored as a digest, so a client cannot make keys huge. */
export const MAX_IDENTITY_LENGTH = 200;
const UNSAFE = /[{}%#]/;
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
  if (!UNSAFE.test(identity)) return identity;
  return identity.replace(UNSAFE_ALL, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
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

/** `<prefix>:{<identity>}:<limit>:<algorithm>`: every key of one decision shares a hash slot. */
export function storageKeys(prefix: string, identity: string, suffixes: readonly string[]): string[] {
  const head = `${prefix}:{${encodeIdentity(identity)}}:`;
  return suffixes.map((suffix) => head + suffix);
}
