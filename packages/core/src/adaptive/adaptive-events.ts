import { invalidOption } from '../errors.js';
import type { LimitEstimates, LimitSample } from './limits/sample.js';

/** Why a request got no slot: the limit (and its partition's share) was full, the queue was full, its wait ran out, or the limiter was closed. */
export type AdaptiveRejectReason = 'limit' | 'queue-full' | 'timeout' | 'closed';

/** The limit moved. */
export interface AdaptiveLimitEvent {
  limit: number;
  previous: number;
  /** The sample that moved it. */
  sample: LimitSample;
  estimates: LimitEstimates;
}

/** A request gave back its slot with a success or a drop (an ignored one gives no sample). */
export interface AdaptiveSampleEvent {
  /** Its partition's name; undefined without partitions. */
  partition: string | undefined;
  sample: LimitSample;
  /** The limit after the sample. */
  limit: number;
  /** Requests in flight after it left. */
  inflight: number;
  estimates: LimitEstimates;
  /** The event loop's delay the sample was judged by; undefined without `eventLoopDelay`. */
  eventLoopDelayMs: number | undefined;
}

export interface AdaptiveRejectedEvent {
  partition: string | undefined;
  reason: AdaptiveRejectReason;
  limit: number;
  inflight: number;
  /** Requests waiting in the queue after this one left it (or was refused a place). */
  queued: number;
}

export interface AdaptiveEventMap {
  limit: AdaptiveLimitEvent;
  sample: AdaptiveSampleEvent;
  rejected: AdaptiveRejectedEvent;
}

export type AdaptiveEventName = keyof AdaptiveEventMap;
export type AdaptiveListener<E extends AdaptiveEventName> = (event: AdaptiveEventMap[E]) => void;
/** The `events` option: one listener per event, all optional. */
export type AdaptiveListeners = { [E in AdaptiveEventName]?: AdaptiveListener<E> };

const EVENT_NAMES = { limit: true, sample: true, rejected: true } as const satisfies Record<AdaptiveEventName, true>;

/** A typed emitter; a listener that throws never breaks a request, its error becomes a process warning. */
export class AdaptiveEvents {
  private readonly listeners = new Map<AdaptiveEventName, Set<(event: never) => void>>();

  constructor(initial: AdaptiveListeners | undefined, field: string) {
    if (initial === undefined) return;
    if (typeof initial !== 'object' || initial === null) throw invalidOption(field, 'must be an object of listeners', initial);
    for (const [name, listener] of Object.entries(initial)) {
      if (listener === undefined) continue;
      if (!isEventName(name) || typeof listener !== 'function') {
        throw invalidOption(`${field}.${name}`, `must be a listener of an event (${Object.keys(EVENT_NAMES).join(', ')})`, listener);
      }
      this.on(name, listener as AdaptiveListener<typeof name>);
    }
  }

  has(event: AdaptiveEventName): boolean {
    return this.listeners.has(event);
  }

  /** Adds a listener; returns the function that removes it. */
  on<E extends AdaptiveEventName>(event: E, listener: AdaptiveListener<E>): () => void {
    if (!isEventName(event))
      throw new TypeError(`unknown adaptive limiter event "${String(event)}" (events: ${Object.keys(EVENT_NAMES).join(', ')})`);
    let set = this.listeners.get(event);
    if (!set) {
      set = new Set();
      this.listeners.set(event, set);
    }
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0 && this.listeners.get(event) === set) this.listeners.delete(event);
    };
  }

  emit<E extends AdaptiveEventName>(event: E, payload: AdaptiveEventMap[E]): void {
    for (const listener of this.listeners.get(event) ?? []) {
      try {
        (listener as AdaptiveListener<E>)(payload);
      } catch (error) {
        process.emitWarning(
          `a tollgate adaptive "${event}" listener threw: ${(error as Error)?.stack ?? String(error)}`,
          'TollgateListenerWarning',
        );
      }
    }
  }
}

function isEventName(name: string): name is AdaptiveEventName {
  return Object.hasOwn(EVENT_NAMES, name);
}
