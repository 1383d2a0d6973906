/** Length of one sampling period of the per-key rates (ms). */
const PERIOD_MS = 50;

/**
 * Cost units asked per key in this process, over the current and the previous sampling period:
 * two Maps that take turns, so a key unseen for two periods is forgotten with no sweep.
 */
export class KeyRates {
  private current = new Map<string, number>();
  private previous = new Map<string, number>();
  private periodStartMs = Number.NEGATIVE_INFINITY;

  /** Counts `cost` for `key` at `nowMs`; returns the key's rate in cost units per ms. */
  observe(key: string, cost: number, nowMs: number): number {
    if (nowMs >= this.periodStartMs + PERIOD_MS) this.turn(nowMs);
    const count = (this.current.get(key) ?? 0) + cost;
    this.current.set(key, count);
    // The busier of the two periods: a key that just turned hot leases at once.
    return Math.max(count, this.previous.get(key) ?? 0) / PERIOD_MS;
  }

  private turn(nowMs: number): void {
    const skipped = nowMs >= this.periodStartMs + 2 * PERIOD_MS;
    this.previous = skipped ? new Map() : this.current;
    this.current = new Map();
    this.periodStartMs = nowMs - (nowMs % PERIOD_MS);
  }
}
