/** Whole seconds, rounded up: a client that waits this long is never early. */
export function ceilSeconds(ms: number): number {
  return Math.ceil(ms / 1000);
}
