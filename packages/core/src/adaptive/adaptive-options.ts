import { performance } from 'node:perf_hooks';
import { invalidOption } from '../errors.js';
import { refuseUnknownFields } from '../option-fields.js';
import { AdaptiveEvents, type AdaptiveListeners } from './adaptive-events.js';
import { functionOr, numberWithin, wholeAtLeast } from './checks.js';
import { type AdaptiveLimitOption, parseLimitOption } from './limits/parse-limit.js';
import type { LimitAlgorithm } from './limits/sample.js';
import { createLoopDelayProbe, type EventLoopDelayOptions, type LoopDelayProbe } from './loop-delay.js';
import { Partitions } from './partitions.js';
import type { QueueOrder } from './wait-queue.js';

export interface AdaptiveQueueOptions {
  /** The longest a request waits for a slot, in milliseconds. */
  maxWaitMs: number;
  /** The most requests waiting at once; one more is refused at once. Default 100. */
  maxSize?: number;
  /** Which waiter a freed slot goes to, within a partition. Default `'lifo'`. */
  order?: QueueOrder;
}

export const QUEUE_FIELDS = { maxWaitMs: true, maxSize: true, order: true } as const satisfies Record<keyof AdaptiveQueueOptions, true>;

export interface AdaptiveLimiterOptions<Context = unknown> {
  /** How the limit is found: `'vegas'` (default), `'gradient2'`, `'aimd'`, one of them with options, or a fixed number. */
  limit?: AdaptiveLimitOption;
  /** Guaranteed shares of the limit by partition name, highest priority first, e.g. `{ critical: 0.8, batch: 0.2 }`. */
  partitions?: Readonly<Record<string, number>>;
  /** Names the partition of a request; a name not in `partitions` (or undefined) is partition `unknown`, with a share of 0. */
  partition?: (context: Context) => string | undefined;
  /** Wait this long for a slot before refusing; without it a request is refused at once when the limit is full. */
  queue?: AdaptiveQueueOptions;
  /** Also count a request as a loss when the event loop is this delayed (`perf_hooks.monitorEventLoopDelay`). */
  eventLoopDelay?: EventLoopDelayOptions;
  /** Millisecond clock the round trips are measured with (tests use a virtual one). Default `performance.now`. */
  clock?: () => number;
  events?: AdaptiveListeners;
}

export const ADAPTIVE_LIMITER_FIELDS = {
  limit: true,
  partitions: true,
  partition: true,
  queue: true,
  eventLoopDelay: true,
  clock: true,
  events: true,
} as const satisfies Record<keyof AdaptiveLimiterOptions, true>;

export interface AdaptiveConfig<Context> {
  readonly algorithm: LimitAlgorithm;
  readonly partitions: Partitions | undefined;
  readonly partitionOf: (context: Context) => string | undefined;
  readonly queue: { readonly maxWaitMs: number; readonly maxSize: number; readonly order: QueueOrder } | undefined;
  readonly loopDelay: LoopDelayProbe | undefined;
  readonly clock: () => number;
  readonly events: AdaptiveEvents;
}

/** Checks the options once, filling in defaults; errors name the field. */
export function parseAdaptiveOptions<Context>(options: AdaptiveLimiterOptions<Context>): AdaptiveConfig<Context> {
  if (typeof options !== 'object' || options === null) throw invalidOption('options', 'must be an object', options);
  refuseUnknownFields(options, ADAPTIVE_LIMITER_FIELDS);
  const partitions = parsePartitions(options.partitions, options.partition);
  const clock = functionOr(options.clock, 'clock', () => performance.now());
  return {
    algorithm: parseLimitOption(options.limit ?? 'vegas'),
    partitions,
    partitionOf: functionOr(options.partition, 'partition', () => undefined),
    queue: parseQueue(options.queue),
    events: new AdaptiveEvents(options.events, 'events'),
    clock,
    // Last: the probe starts a monitor, which nothing would stop if a later option were refused.
    loopDelay: options.eventLoopDelay === undefined ? undefined : createLoopDelayProbe(options.eventLoopDelay, 'eventLoopDelay'),
  };
}

function parsePartitions(shares: unknown, partition: unknown): Partitions | undefined {
  if (shares === undefined) {
    if (partition !== undefined) throw invalidOption('partition', 'needs partitions to choose from', partition);
    return undefined;
  }
  if (typeof shares !== 'object' || shares === null) throw invalidOption('partitions', 'must be an object of shares by name', shares);
  if (partition === undefined)
    throw invalidOption('partition', 'is required with partitions (a function naming the partition of a request)', partition);
  return new Partitions(shares as Record<string, number>, 'partitions');
}

function parseQueue(queue: unknown): AdaptiveConfig<unknown>['queue'] {
  if (queue === undefined) return undefined;
  if (typeof queue !== 'object' || queue === null) throw invalidOption('queue', 'must be an object with maxWaitMs', queue);
  refuseUnknownFields(queue, QUEUE_FIELDS, 'queue.');
  const { maxWaitMs, maxSize, order } = queue as AdaptiveQueueOptions;
  if (maxWaitMs === undefined) throw invalidOption('queue.maxWaitMs', 'is required', maxWaitMs);
  if (order !== undefined && order !== 'fifo' && order !== 'lifo') throw invalidOption('queue.order', "must be 'fifo' or 'lifo'", order);
  return {
    maxWaitMs: numberWithin(maxWaitMs, [0, 2_147_483_647], 'queue.maxWaitMs', 0),
    maxSize: wholeAtLeast(maxSize, 1, 'queue.maxSize', 100),
    order: order ?? 'lifo',
  };
}
