/**
 * A downstream of fixed capacity: `slots` slots, each held for `serviceMs` by a timer, and an
 * unbounded FIFO line for them. Its capacity (slots / serviceMs) does not move with the machine's
 * load, as a CPU-bound service's would. A waiter whose client has gone still takes its slot: the
 * downstream cannot tell, which is how a queue without a limit wastes capacity on stale work.
 */
export class FixedPool {
  private busy = 0;
  private readonly line: (() => void)[] = [];

  constructor(
    readonly slots: number,
    readonly serviceMs: number,
  ) {}

  get capacityPerSecond(): number {
    return (this.slots * 1000) / this.serviceMs;
  }

  /** Resolves once the work is done: after waiting for a slot, then holding it `serviceMs`. */
  async serve(): Promise<void> {
    if (this.busy < this.slots) this.busy += 1;
    else await new Promise<void>((resolve) => this.line.push(resolve));
    await new Promise((resolve) => setTimeout(resolve, this.serviceMs));
    const next = this.line.shift();
    if (next) next();
    else this.busy -= 1;
  }
}
