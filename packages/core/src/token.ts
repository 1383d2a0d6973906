import { randomBytes } from 'node:crypto';

/** Random per process, so tokens of processes sharing one Redis never collide. */
const PROCESS_PREFIX = randomBytes(9).toString('base64url');
let counter = 0;

/** A string unique to one operation (base64url and base36: never contains ':'). */
export function operationToken(): string {
  counter += 1;
  return PROCESS_PREFIX + counter.toString(36);
}
