import type { Decision } from './decision.js';
import type { LimiterEvents } from './events.js';
import type { StoreOperation } from './stores/store.js';

/** The last step of every limiter call: shadow mode, then the decision event of a consume. */
export class DecisionReport {
  constructor(
    private readonly rule: string,
    private readonly shadow: boolean,
    private readonly events: LimiterEvents,
  ) {}

  /** The decision the caller gets for `verdict`, the one the rule reached for `key`. */
  report(operation: StoreOperation, key: string, verdict: Decision, latencyMs: number): Decision {
    const decision: Decision = this.shadow
      ? {
          ...verdict,
          allowed: true,
          retryAfterMs: 0,
          delayMs: 0,
          shadow: { allowed: verdict.allowed, retryAfterMs: verdict.retryAfterMs, delayMs: verdict.delayMs },
        }
      : verdict;
    if (operation.kind === 'consume') {
      const event = !verdict.allowed ? 'denied' : verdict.delayMs > 0 ? 'delayed' : 'allowed';
      if (this.events.has(event)) this.events.emit(event, { rule: this.rule, key, cost: operation.cost, decision, latencyMs });
    }
    return decision;
  }
}
