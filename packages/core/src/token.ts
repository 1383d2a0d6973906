import { randomBytes } from 'node:crypto';

const PROCESS_TAG = randomBytes(9).toString('base64url');
let counter = 0;

/** A string no other operation gets, in this process or another: a random per-process tag and a counter. */
export function uniqueToken(): string {
  counter += 1;
  return `${PROCESS_TAG}.${counter.toString(36)}`;
}
