import type { Decision } from './decision.js';
import type { LimiterEvents } from './events.js';
import type { OperationKind } from './stores/store.js';

/** The last step of every limiter call: shadow mode, then the decision event of a consume. */
export class DecisionReport {
  constructor(
    private readonly rule: string,
    private readonly shadow: boolean,
    private readonly events: LimiterEvents,
  ) {}

  /** The decision the caller gets for `verdict`, the one the rule reached for `key` by an operation of `kind` and `cost`. */
  report(kind: OperationKind, cost: number, key: string, verdict: Decision, latencyMs: number): Decision {
    const decision = this.shadow ? shadowed(verdict) : verdict;
    if (kind === 'consume' && this.events.listened()) this.emitDecision(key, cost, verdict, decision, latencyMs);
    return decision;
  }

  private emitDecision(key: string, cost: number, verdict: Decision, decision: Decision, latencyMs: number): void {
    const event = !verdict.allowed ? 'denied' : verdict.delayMs > 0 ? 'delayed' : 'allowed';
    if (this.events.has(event)) this.events.emit(event, { rule: this.rule, key, cost, decision, latencyMs });
  }
}

/** Shadow mode: the caller is let through, and told what the rule decided. */
function shadowed(verdict: Decision): Decision {
  const shadow = { allowed: verdict.allowed, retryAfterMs: verdict.retryAfterMs, delayMs: verdict.delayMs };
  return { ...verdict, allowed: true, retryAfterMs: 0, delayMs: 0, shadow };
}
