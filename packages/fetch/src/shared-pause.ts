import { type Clock, createLimiter, type Limiter, type Store } from '@tollgate/core';

/** More leases than a key could ever gather: a pause never waits for a slot. */
const UNBOUNDED = 1_000_000_000;
const PAUSE_LIMITERS_KEPT = 64;

/**
 * "Nobody calls this key until T", shared by every process on the store. A pause is a lease of a
 * `concurrency` limit that is never released: it lives until the upstream said, and the key is
 * paused while any lease lives (the latest expiry wins, so two processes reporting the same
 * 429 pause once, not twice as long). Asking is a `peek`, which takes nothing.
 */
export class SharedPause {
  private readonly probe: Limiter;
  private readonly pausers = new Map<number, Limiter>();
  /** Pauses already known here, so callers of a paused key do not each ask the store. */
  private readonly knownUntil = new Map<string, number>();

  private readonly now: Clock;

  /** Without `clock`, a RedisStore times pauses on the Redis server's clock, shared by every process. */
  constructor(
    private readonly store: Store,
    private readonly prefix: string,
    private readonly clock?: Clock,
  ) {
    this.now = clock ?? Date.now;
    this.probe = this.limiterFor(1);
  }

  /** Milliseconds `key` stays paused by a pause this process already knows of; 0 otherwise. Asks nobody. */
  knownMs(key: string): number {
    const known = (this.knownUntil.get(key) ?? 0) - this.now();
    if (known > 0) return known;
    this.knownUntil.delete(key);
    return 0;
  }

  /** Milliseconds `key` stays paused; 0 when it is not (or the store cannot tell). */
  async remainingMs(key: string): Promise<number> {
    const known = this.knownMs(key);
    if (known > 0) return known;
    const decision = await this.probe.peek(key);
    // The probe's own lease would last 1 ms: anything longer is a pause someone took.
    if (decision.source !== 'store' || decision.resetAfterMs <= 1) return 0;
    this.knownUntil.set(key, this.now() + decision.resetAfterMs);
    return decision.resetAfterMs;
  }

  /** Pauses `key` for `ms` everywhere, unless a longer pause is already in force. */
  async pause(key: string, ms: number): Promise<void> {
    const wholeMs = Math.ceil(ms);
    const until = this.now() + wholeMs;
    if (until > (this.knownUntil.get(key) ?? 0)) this.knownUntil.set(key, until);
    await this.limiterFor(wholeMs).consume(key);
  }

  private limiterFor(leaseTtl: number): Limiter {
    let limiter = this.pausers.get(leaseTtl);
    if (limiter !== undefined) return limiter;
    if (this.pausers.size >= PAUSE_LIMITERS_KEPT) this.pausers.clear();
    // Same prefix, limit name and algorithm: every lease length writes the same key.
    limiter = createLimiter({
      algorithm: 'concurrency',
      limit: UNBOUNDED,
      leaseTtl,
      store: this.store,
      prefix: this.prefix,
      denyCache: false,
      ...(this.clock ? { clock: this.clock } : {}),
    });
    this.pausers.set(leaseTtl, limiter);
    return limiter;
  }
}
