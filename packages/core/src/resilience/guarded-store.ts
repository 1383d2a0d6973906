import { type Decision, type LimitInfo, toDecision } from '../decision.js';
import { TollgateError } from '../errors.js';
import type { BypassReason } from '../events.js';
import { hashTagOf } from '../keys.js';
import type { LimiterConfig } from '../limiter-config.js';
import type { DecisionReport } from '../limiter-report.js';
import type { Limiter } from '../limiter-types.js';
import type { BoundLimit, StoreOperation, StoreResult } from '../stores/store.js';
import type { Breaker } from './breaker.js';
import { policyDecision } from './policy-decision.js';
import { StoreTimeoutError, withTimeout } from './timeout.js';

/** The failure mode, or the limiter asked instead of the store. */
export type StoreFailureAnswer = 'open' | 'closed' | Limiter;

/**
 * A store call and what stands around it: the deny cache answers first, the breaker may keep
 * the store out, the call is timed out, a failure is answered by the failure mode or the
 * fallback limiter, and each step emits its events.
 */
export class GuardedStore {
  private readonly closedRetryAfterMs: number;
  /** True from a failed store call until one succeeds: the outage is logged once. */
  private inOutage = false;

  constructor(
    private readonly config: LimiterConfig,
    private readonly fallback: StoreFailureAnswer,
    private readonly infos: readonly LimitInfo[],
    private readonly decisions: DecisionReport,
    /** The rule's limits as the store gets them (its block after them): a plain consume's. */
    private readonly ruleLimits: readonly BoundLimit[],
  ) {
    this.closedRetryAfterMs = config.breakers?.coolDownMs ?? 1000;
  }

  async call(operation: StoreOperation, key: string): Promise<Decision> {
    const { denyCache, breakers, store, now, events, rule } = this.config;
    const { kind, cost } = operation;
    // Waiters check the rule in reserve mode (other limits): their denials say nothing of a plain consume.
    const cacheable =
      denyCache !== undefined && kind === 'consume' && cost === 1 && operation.costs === undefined && operation.limits === this.ruleLimits;
    if (cacheable) {
      const cached = denyCache.get(key, now(), operation.limits);
      if (cached) return this.decisions.report(operation.kind, operation.cost, key, cached, 0);
    }
    const local = store.answerNow?.(operation);
    if (local !== undefined)
      return this.decisions.report(operation.kind, operation.cost, key, toDecision(operation, local, this.infos, now()), 0);
    // Capacity given back here may end a cached denial early.
    if (kind === 'reset' || kind === 'refund' || kind === 'settle' || kind === 'block') denyCache?.forget(key);
    // One breaker per failure domain: a failed Cluster node does not stop calls to the others.
    const breaker = breakers?.for(store.failureDomain?.(hashTagOf(operation.keyspaces, operation.identity)) ?? '');
    if (breaker && !breaker.admit()) return this.bypass(operation, key, 'breaker-open', breaker);
    const sentAtMs = now();
    const startedAt = performance.now();
    let result: StoreResult;
    try {
      result = await withTimeout(store.execute(operation), this.config.timeout);
    } catch (error) {
      return this.failed(operation, key, error, performance.now() - startedAt, breaker);
    }
    this.inOutage = false;
    const openForMs = breaker?.succeeded();
    if (openForMs !== undefined) events.emit('breakerClose', { rule, openForMs });
    const decision = toDecision(operation, result, this.infos, now());
    if (cacheable) denyCache.remember(key, decision, sentAtMs, operation.limits);
    return this.decisions.report(operation.kind, operation.cost, key, decision, performance.now() - startedAt);
  }

  private failed(
    operation: StoreOperation,
    key: string,
    cause: unknown,
    latencyMs: number,
    breaker: Breaker | undefined,
  ): Promise<Decision> {
    const { events, rule } = this.config;
    const reason = cause instanceof StoreTimeoutError ? 'timeout' : 'error';
    const error =
      cause instanceof TollgateError
        ? cause
        : new TollgateError('ERR_TOLLGATE_STORE', `store call failed: ${(cause as Error)?.message ?? String(cause)}`, undefined, { cause });
    events.emit('storeError', { rule, key, reason, error, latencyMs });
    this.logOutage(error);
    const failures = breaker?.failed();
    if (failures !== undefined) events.emit('breakerOpen', { rule, failures, coolDownMs: breaker!.coolDownMs, error });
    return this.bypass(operation, key, reason, breaker);
  }

  /** One line per outage, as express-rate-limit's `passOnStoreError` logs it: what failed, and what answers meanwhile. */
  private logOutage(error: TollgateError): void {
    if (this.inOutage) return;
    this.inOutage = true;
    const { fallback } = this;
    const answer =
      fallback === 'open'
        ? 'allowing requests without limiting them'
        : fallback === 'closed'
          ? 'refusing requests'
          : 'asking the fallback limiter';
    this.config.logger.error(
      `tollgate: the store of rule "${this.config.rule}" failed (${error.message}); ${answer} until it answers again`,
      error,
    );
  }

  private async bypass(operation: StoreOperation, key: string, reason: BypassReason, breaker: Breaker | undefined): Promise<Decision> {
    const { fallback } = this;
    const { events, rule } = this.config;
    const decision: Decision =
      typeof fallback === 'string'
        ? policyDecision(fallback === 'open', this.infos, breaker?.retryAfterMs() || this.closedRetryAfterMs, this.config.now())
        : { ...(await askFallback(fallback, operation, key)), source: 'fallback' };
    if (events.has('fallback')) {
      events.emit('fallback', { rule, key, reason, policy: typeof fallback === 'string' ? fallback : 'fallback', decision });
    }
    return this.decisions.report(operation.kind, operation.cost, key, decision, 0);
  }
}

/** Puts an operation the store could not answer to the fallback limiter. */
function askFallback(fallback: Limiter, { kind, cost }: StoreOperation, key: string): Promise<Decision> {
  switch (kind) {
    case 'consume':
      return fallback.consume(key, { cost });
    case 'refund':
      return fallback.refund(key, { cost });
    case 'reset':
      return fallback.reset(key);
    default:
      return fallback.peek(key);
  }
}
