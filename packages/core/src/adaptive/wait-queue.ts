import type { AdaptiveRejectReason } from './adaptive-events.js';
import type { Partition } from './partitions.js';

/** Which waiter a freed slot goes to: the longest waiting (`fifo`) or the latest (`lifo`). */
export type QueueOrder = 'fifo' | 'lifo';

export interface Waiter {
  readonly partition: Partition | undefined;
  readonly enqueuedAt: number;
  /** Hands the waiter a slot (`admitted`) or sends it away, saying why. */
  readonly settle: (outcome: 'admitted' | AdaptiveRejectReason) => void;
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

  /**
   * Adds a waiter. A full queue makes room by pushing out the waiter it would serve last, when that
   * one is of a lower priority than `waiter`: batch requests filling the queue under overload must not
   * turn critical ones away. Returns the waiter pushed out (undefined: none), or false when `waiter` found no room.
   */
  add(waiter: Waiter): Waiter | undefined | false {
    let pushedOut: Waiter | undefined;
    if (this.waiters.length >= this.capacity) {
      const last = this.lastServed();
      if (last < 0 || rank(this.waiters[last]!) <= rank(waiter)) return false;
      pushedOut = this.waiters.splice(last, 1)[0];
    }
    this.waiters.push(waiter);
    return pushedOut;
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

  /** Where the waiter served last is: the lowest priority, and within it the last by `order`. */
  private lastServed(): number {
    let last = -1;
    for (let i = 0; i < this.waiters.length; i++) {
      if (last < 0 || !this.before(this.waiters[i]!, this.waiters[last]!)) last = i;
    }
    return last;
  }

  /** Takes every waiter out. */
  drain(): Waiter[] {
    return this.waiters.splice(0);
  }

  /** `a` (later in the queue than `b`) goes first: a higher priority, or the same one and LIFO. */
  private before(a: Waiter, b: Waiter): boolean {
    return rank(a) !== rank(b) ? rank(a) < rank(b) : this.order === 'lifo';
  }
}

/** A waiter's priority: a lower rank is served first. */
const rank = (waiter: Waiter): number => waiter.partition?.rank ?? 0;
