import type { Decision } from './decision.js';
import { TollgateError } from './errors.js';

/** Why a decision was made without the store. */
export type BypassReason = 'error' | 'timeout' | 'breaker-open';

/** A consume's decision (`allowed`, `denied`, `delayed`: exactly one per consume). */
export interface DecisionEvent {
  /** The limiter's `rule` name. */
  rule: string;
  key: string;
  cost: number;
  decision: Decision;
  /** Time spent waiting for the store; 0 when the store was not called (`cache`, breaker open). */
  latencyMs: number;
}

export interface StoreErrorEvent {
  rule: string;
  key: string;
  /** `timeout`: no answer within the limiter's `timeout`; `error`: the store failed. */
  reason: 'error' | 'timeout';
  error: TollgateError;
  latencyMs: number;
}

/** A decision made by the failure mode or the fallback limiter instead of the store. */
export interface FallbackEvent {
  rule: string;
  key: string;
  reason: BypassReason;
  /** What answered: `open` (allow), `closed` (deny) or `fallback` (the fallback limiter). */
  policy: 'open' | 'closed' | 'fallback';
  decision: Decision;
}

export interface BreakerOpenEvent {
  rule: string;
  /** Consecutive failures that opened it. */
  failures: number;
  /** The store is left alone this long before a probe. */
  coolDownMs: number;
  error: TollgateError;
}

export interface BreakerCloseEvent {
  rule: string;
  /** How long the breaker stayed open. */
  openForMs: number;
}

export interface LimiterEventMap {
  allowed: DecisionEvent;
  denied: DecisionEvent;
  delayed: DecisionEvent;
  storeError: StoreErrorEvent;
  fallback: FallbackEvent;
  breakerOpen: BreakerOpenEvent;
  breakerClose: BreakerCloseEvent;
}

export type LimiterEventName = keyof LimiterEventMap;
export type LimiterListener<E extends LimiterEventName> = (event: LimiterEventMap[E]) => void;
/** The `events` option: one listener per event, all optional. */
export type LimiterListeners = { [E in LimiterEventName]?: LimiterListener<E> };

const EVENT_NAMES: readonly LimiterEventName[] = ['allowed', 'denied', 'delayed', 'storeError', 'fallback', 'breakerOpen', 'breakerClose'];

/**
 * A small typed emitter. `has` lets the limiter skip building a payload nobody reads.
 * A listener that throws never breaks a decision: the error becomes a process warning.
 */
export class LimiterEvents {
  private readonly listeners = new Map<LimiterEventName, Set<(event: never) => void>>();

  /** An emitter holding the listeners of a limiter's `events` option. */
  /** The `events` option's listeners; errors name `field` (where the option sits). */
  static from(listeners: LimiterListeners | undefined, field = 'events'): LimiterEvents {
    const events = new LimiterEvents();
    if (listeners === undefined) return events;
    if (typeof listeners !== 'object' || listeners === null) {
      throw new TollgateError('ERR_TOLLGATE_INVALID_OPTION', `${field} must be an object of listeners`, field);
    }
    for (const [name, listener] of Object.entries(listeners)) {
      if (listener === undefined) continue;
      if (!isLimiterEventName(name) || typeof listener !== 'function') {
        throw new TollgateError(
          'ERR_TOLLGATE_INVALID_OPTION',
          `${field}.${name} must be a listener of a limiter event (events: ${EVENT_NAMES.join(', ')})`,
          `${field}.${name}`,
        );
      }
      events.on(name, listener as LimiterListener<typeof name>);
    }
    return events;
  }

  has(event: LimiterEventName): boolean {
    return this.listened() && this.listeners.has(event);
  }

  /** Whether any event has a listener: most limiters have none, and are asked on every decision. */
  listened(): boolean {
    return this.listeners.size !== 0;
  }

  on<E extends LimiterEventName>(event: E, listener: LimiterListener<E>): () => void {
    if (!EVENT_NAMES.includes(event)) throw new TypeError(`unknown limiter event "${String(event)}" (events: ${EVENT_NAMES.join(', ')})`);
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

  emit<E extends LimiterEventName>(event: E, payload: LimiterEventMap[E]): void {
    const set = this.listeners.get(event);
    if (!set) return;
    for (const listener of set) {
      try {
        (listener as LimiterListener<E>)(payload);
      } catch (error) {
        process.emitWarning(`a tollgate "${event}" listener threw: ${(error as Error)?.stack ?? String(error)}`, 'TollgateListenerWarning');
      }
    }
  }
}

function isLimiterEventName(name: string): name is LimiterEventName {
  return (EVENT_NAMES as readonly string[]).includes(name);
}
