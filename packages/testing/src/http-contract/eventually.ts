/**
 * How long a case waits for what happens after a response (a lease released, a refund landed, a
 * rule reloaded): long enough for a loaded machine, where a store call can take a second or more.
 * The condition itself is unchanged; only a slow machine waits longer for it.
 */
export const EVENTUALLY = { timeout: 10_000, interval: 20 } as const;
