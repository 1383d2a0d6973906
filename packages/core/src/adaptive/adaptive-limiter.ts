import type { AdaptiveEventName, AdaptiveListener, AdaptiveRejectReason } from './adaptive-events.js';
import { type AdaptiveConfig, type AdaptiveLimiterOptions, parseAdaptiveOptions } from './adaptive-options.js';
import type { LimitEstimates, LimitSample, LimitState } from './limits/sample.js';
import { mayTake, type Partition } from './partitions.js';
import { type Waiter, WaitQueue } from './wait-queue.js';

/** A slot held by one request: give it back exactly once, saying how the request went. */
export interface AdaptiveSlot {
  readonly admitted: true;
  readonly partition: string | undefined;
  /** How long the request waited in the queue, in milliseconds (0 when it got a slot at once). */
  readonly waitedMs: number;
  /** The request succeeded: its round trip moves the limit. */
  success(): void;
  /** The request failed in a way that signals overload (a timeout, a 5xx, dropped): the limit backs off. */
  dropped(): void;
  /** The request says nothing about capacity (a 4xx, cancelled by its client): the slot is freed, no sample taken. */
  ignore(): void;
}

export interface AdaptiveRejection {
  readonly admitted: false;
  readonly partition: string | undefined;
  readonly reason: AdaptiveRejectReason;
  /** A hint for `Retry-After`: the recent average round trip, at least 1 ms. */
  readonly retryAfterMs: number;
}

export type AdaptiveAdmission = AdaptiveSlot | AdaptiveRejection;

export interface AdaptiveSnapshot {
  readonly limit: number;
  readonly inflight: number;
  readonly queued: number;
  readonly estimates: LimitEstimates;
  readonly partitions: readonly { readonly name: string; readonly share: number; readonly limit: number; readonly inflight: number }[];
}

export interface AdaptiveLimiter<Context = unknown> {
  /** A slot now, or a rejection; never waits (the queue is not used). */
  tryAcquire(context?: Context): AdaptiveAdmission;
  /** A slot now, or after waiting in the queue (when `queue` is set) at most `queue.maxWaitMs`; else a rejection. */
  acquire(context?: Context): Promise<AdaptiveAdmission>;
  /** The current limit, in flight, queue and estimates, by partition too. */
  snapshot(): AdaptiveSnapshot;
  on<E extends AdaptiveEventName>(event: E, listener: AdaptiveListener<E>): () => void;
  /** Refuses every waiter (`closed`) and stops the event-loop monitor. Slots held may still be given back. */
  close(): void;
}

/** Weight of a new round trip in the average that `retryAfterMs` reports. */
const RTT_AVERAGE_WEIGHT = 0.1;

/**
 * A concurrency limiter whose limit follows the measured latency (Netflix concurrency-limits'
 * `SimpleLimiter` and `AbstractPartitionedLimiter`, limiter/*.java): each request takes a slot
 * and gives it back with a success, a drop or nothing to say; every success or drop is a sample
 * (its round trip, the requests in flight when it started, whether it was a loss) that moves the limit.
 * Per process: the right limit is a property of this process's resources.
 */
export function createAdaptiveLimiter<Context = unknown>(options: AdaptiveLimiterOptions<Context> = {}): AdaptiveLimiter<Context> {
  return new Adaptive(parseAdaptiveOptions(options));
}

class Adaptive<Context> implements AdaptiveLimiter<Context> {
  private state: LimitState;
  private inflight = 0;
  private rttAverageMs = 0;
  private readonly queue: WaitQueue | undefined;

  constructor(private readonly config: AdaptiveConfig<Context>) {
    this.state = config.algorithm.initial;
    this.queue = config.queue === undefined ? undefined : new WaitQueue(config.queue.order, config.queue.maxSize);
    config.partitions?.setLimit(sharedLimitOf(this.state));
  }

  tryAcquire(context?: Context): AdaptiveAdmission {
    const partition = this.partitionOf(context);
    if (this.mayTake(partition)) return this.take(partition, 0);
    return this.reject(partition, 'limit');
  }

  acquire(context?: Context): Promise<AdaptiveAdmission> {
    const partition = this.partitionOf(context);
    if (this.mayTake(partition)) return Promise.resolve(this.take(partition, 0));
    const queue = this.queue;
    const maxWaitMs = this.config.queue?.maxWaitMs ?? 0;
    if (queue === undefined || maxWaitMs === 0) return Promise.resolve(this.reject(partition, 'limit'));
    return new Promise((resolve) => {
      const enqueuedAt = this.config.clock();
      const waiter: Waiter = {
        partition,
        enqueuedAt,
        settle: (outcome) => {
          clearTimeout(timer);
          resolve(outcome === 'admitted' ? this.take(partition, this.config.clock() - enqueuedAt) : this.reject(partition, outcome));
        },
      };
      const timer = setTimeout(() => {
        if (queue.remove(waiter)) resolve(this.reject(partition, 'timeout'));
      }, maxWaitMs);
      const pushedOut = queue.add(waiter);
      if (pushedOut === false) {
        clearTimeout(timer);
        resolve(this.reject(partition, 'queue-full'));
      } else pushedOut?.settle('queue-full');
    });
  }

  snapshot(): AdaptiveSnapshot {
    const partitions = this.config.partitions?.all() ?? [];
    return {
      limit: this.state.limit,
      inflight: this.inflight,
      queued: this.queue?.size ?? 0,
      estimates: this.config.algorithm.estimates(this.state),
      partitions: partitions.map(({ name, share, limit, inflight }) => ({ name, share, limit, inflight })),
    };
  }

  on<E extends AdaptiveEventName>(event: E, listener: AdaptiveListener<E>): () => void {
    return this.config.events.on(event, listener);
  }

  close(): void {
    for (const waiter of this.queue?.drain() ?? []) waiter.settle('closed');
    this.config.loopDelay?.close();
  }

  private partitionOf(context: Context | undefined): Partition | undefined {
    return this.config.partitions?.resolve(this.config.partitionOf(context as Context));
  }

  private mayTake(partition: Partition | undefined): boolean {
    return partition === undefined ? this.inflight < this.state.limit : mayTake(partition, this.inflight, this.state.limit);
  }

  private take(partition: Partition | undefined, waitedMs: number): AdaptiveSlot {
    this.inflight += 1;
    if (partition) partition.inflight += 1;
    const startedAt = this.config.clock();
    const inflightAtStart = this.inflight;
    let given = false;
    const giveBack = (outcome: 'success' | 'dropped' | 'ignore') => {
      if (given) return;
      given = true;
      this.inflight -= 1;
      if (partition) partition.inflight -= 1;
      // Still at or over its share without this slot: the slot was borrowed.
      const borrowed = partition !== undefined && partition.inflight >= partition.limit;
      if (outcome !== 'ignore') this.sample(partition, this.config.clock() - startedAt, inflightAtStart, outcome === 'dropped');
      this.serveWaiters(borrowed ? partition : undefined);
    };
    return {
      admitted: true,
      partition: partition?.name,
      waitedMs,
      success: () => giveBack('success'),
      dropped: () => giveBack('dropped'),
      ignore: () => giveBack('ignore'),
    };
  }

  private sample(partition: Partition | undefined, rttMs: number, inflight: number, dropped: boolean): void {
    const { algorithm, loopDelay, events } = this.config;
    const eventLoopDelayMs = loopDelay?.delayMs(this.config.clock());
    const overloaded = eventLoopDelayMs !== undefined && loopDelay !== undefined && eventLoopDelayMs > loopDelay.maxMs;
    const sample: LimitSample = { rttMs, inflight, dropped: dropped || overloaded };
    const previous = this.state.limit;
    const previousShared = sharedLimitOf(this.state);
    this.state = algorithm.step(this.state, sample);
    this.rttAverageMs = this.rttAverageMs === 0 ? rttMs : this.rttAverageMs + RTT_AVERAGE_WEIGHT * (rttMs - this.rttAverageMs);
    if (sharedLimitOf(this.state) !== previousShared) this.config.partitions?.setLimit(sharedLimitOf(this.state));
    if (this.state.limit !== previous) {
      if (events.has('limit'))
        events.emit('limit', { limit: this.state.limit, previous, sample, estimates: algorithm.estimates(this.state) });
    }
    if (events.has('sample')) {
      const estimates = algorithm.estimates(this.state);
      events.emit('sample', {
        partition: partition?.name,
        sample,
        limit: this.state.limit,
        inflight: this.inflight,
        estimates,
        eventLoopDelayMs,
      });
    }
  }

  /**
   * Hands free slots to waiters, highest priority first. A slot given back by a partition that had
   * borrowed it (`borrowedFrom`) passes to a waiter of a higher partition even while the limit is
   * full: in flight stays as it was, and the borrowing partition is the one shed.
   */
  private serveWaiters(borrowedFrom?: Partition): void {
    const queue = this.queue;
    if (queue === undefined) return;
    let handOver = borrowedFrom;
    const outranks = (waiter: Waiter) => handOver !== undefined && (waiter.partition?.rank ?? handOver.rank) < handOver.rank;
    const admissible = (waiter: Waiter) => this.mayTake(waiter.partition) || outranks(waiter);
    for (let waiter = queue.next(admissible); waiter; waiter = queue.next(admissible)) {
      if (!this.mayTake(waiter.partition)) handOver = undefined;
      waiter.settle('admitted');
    }
  }

  private reject(partition: Partition | undefined, reason: AdaptiveRejectReason): AdaptiveRejection {
    const { events } = this.config;
    if (events.has('rejected')) {
      events.emit('rejected', {
        partition: partition?.name,
        reason,
        limit: this.state.limit,
        inflight: this.inflight,
        queued: this.queue?.size ?? 0,
      });
    }
    return { admitted: false, partition: partition?.name, reason, retryAfterMs: Math.max(1, Math.ceil(this.rttAverageMs)) };
  }
}

const sharedLimitOf = (state: LimitState): number => state.sharedLimit ?? state.limit;
