import { invalidOption } from '../errors.js';

/** Requests whose partition function names no declared partition share this one (a share of 0). */
export const UNKNOWN_PARTITION = 'unknown';

export interface Partition {
  readonly name: string;
  readonly share: number;
  /** Its guaranteed slots: max(1, ceil(limit × share)). */
  limit: number;
  inflight: number;
  /** Its place in the declaration: a lower one is served first from the queue. */
  readonly rank: number;
}

/**
 * Guaranteed shares of the limit, as Netflix concurrency-limits' `AbstractPartitionedLimiter`
 * (limiter/AbstractPartitionedLimiter.java): below the whole limit any partition takes a slot, so
 * idle share is borrowed; at or above it only a partition under its own share does. A partition
 * that borrowed is over its share when the limit fills, so its requests are the ones refused.
 */
export class Partitions {
  private readonly byName = new Map<string, Partition>();
  readonly unknown: Partition;

  constructor(shares: Readonly<Record<string, number>>, field: string) {
    let total = 0;
    for (const [name, share] of Object.entries(shares)) {
      if (typeof share !== 'number' || !(share >= 0 && share <= 1))
        throw invalidOption(`${field}.${name}`, 'must be a share from 0 to 1', share);
      total += share;
      this.byName.set(name, { name, share, limit: 0, inflight: 0, rank: this.byName.size });
    }
    // A little over 1 is rounding (0.7 + 0.2 + 0.1); more is a mistake.
    if (total > 1 + 1e-9) throw invalidOption(field, 'must have shares adding up to at most 1', shares);
    this.unknown = this.byName.get(UNKNOWN_PARTITION) ?? {
      name: UNKNOWN_PARTITION,
      share: 0,
      limit: 0,
      inflight: 0,
      rank: this.byName.size,
    };
  }

  /** The partition named `name`, the unknown one when none is. */
  resolve(name: string | undefined): Partition {
    return (name === undefined ? undefined : this.byName.get(name)) ?? this.unknown;
  }

  /** Every partition, the unknown one last. */
  all(): Partition[] {
    const all = [...this.byName.values()];
    return this.byName.has(UNKNOWN_PARTITION) ? all : [...all, this.unknown];
  }

  /** Shares the limit out again; rounding up, the partitions' limits may add up to more than it. */
  setLimit(limit: number): void {
    for (const partition of this.all()) partition.limit = Math.max(1, Math.ceil(limit * partition.share));
  }
}

/** Whether `partition` may take a slot now, `inflight` of `limit` being taken in all. */
export function mayTake(partition: Partition, inflight: number, limit: number): boolean {
  return inflight < limit || partition.inflight < partition.limit;
}
