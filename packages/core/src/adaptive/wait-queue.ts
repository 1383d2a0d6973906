import type { Partition } from './partitions.js';

/** Which waiter a freed slot goes to: the longest waiting (`fifo`) or the latest (`lifo`). */
export type QueueOrder = 'fifo' | 'lifo';

export interface Waiter {
  readonly partition: Partition | undefined;
  readonly enqueuedAt: number;
  /** Hands the waiter a slot (true) or sends it away (false). */
  readonly settle: (admitted: boolean) => void;
}

/**
 * The requests waiting for a slot. A freed slot goes to the highest-priority partition (the first
 * declared) that may take one, and within it by `order`. LIFO serves the freshest request first, whose
 * client is most likely still waiting: under sustained overload FIFO hands every slot to a request
 * that has already waited longest (Netflix concurrency-limits' `LifoBlockingLimiter`).
 */
export class WaitQueue {
  private readonly waiters: Waiter[] = [];

  constructor(
    private readonly order: QueueOrder,
    readonly capacity: number,
  ) {}

  get size(): number {
    return this.waiters.length;
  }

  /** Adds a waiter; false when the queue is full. */
  add(waiter: Waiter): boolean {
    if (this.waiters.length >= this.capacity) return false;
    this.waiters.push(waiter);
    return true;
  }

  /** Takes `waiter` out (its wait timed out); false when it was no longer there. */
  remove(waiter: Waiter): boolean {
    const at = this.waiters.indexOf(waiter);
    if (at < 0) return false;
    this.waiters.splice(at, 1);
    return true;
  }

  /** Takes out the waiter the next free slot goes to, among those `mayTake` lets in. */
  next(mayTake: (waiter: Waiter) => boolean): Waiter | undefined {
    let best = -1;
    for (let i = 0; i < this.waiters.length; i++) {
      const waiter = this.waiters[i]!;
      if (!mayTake(waiter)) continue;
      if (best < 0 || this.before(waiter, this.waiters[best]!)) best = i;
    }
    return best < 0 ? undefined : this.waiters.splice(best, 1)[0];
  }

  /** Takes every waiter out. */
  drain(): Waiter[] {
    return this.waiters.splice(0);
  }

  /** `a` (later in the queue than `b`) goes first: a higher priority, or the same one and LIFO. */
  private before(a: Waiter, b: Waiter): boolean {
    const rankA = a.partition?.rank ?? 0;
    const rankB = b.partition?.rank ?? 0;
    return rankA !== rankB ? rankA < rankB : this.order === 'lifo';
  }
}
