import {
  createLimiter,
  type Decision,
  type Limiter,
  type LimiterOptions,
  type RuleSpec,
  type Store,
  type StoreOperation,
  type StoreResult,
} from '../../src/index.js';
import { groupMemberOf } from '../../src/limiter.js';
import type { LimiterCalls } from '../../src/limiter-calls.js';
import { STORE_SEMANTICS } from './stores.js';

export type TraceStep =
  | { op: 'consume'; advanceMs: number; cost: number }
  | { op: 'peek'; advanceMs: number }
  | { op: 'reset'; advanceMs: number }
  | { op: 'refund'; advanceMs: number; cost: number }
  /** Charges `cost` even beyond the limit (the store's 'penalty'). */
  | { op: 'penalty'; advanceMs: number; cost: number }
  /** Refunds the charge of a consume admitted earlier in the trace (`chargeIndex` says which). */
  | { op: 'refund-charge'; advanceMs: number; pick: number }
  /** `limiter.block` (a rule with `blockDuration` only). */
  | { op: 'block'; advanceMs: number; durationMs: number }
  /** A consume of `cost` that takes less, down to `minCost`, when `cost` does not pass (a LeasingStore's lease). */
  | { op: 'lease'; advanceMs: number; cost: number; minCost: number };

/** A step's decision; a lease's also says what the store took (`StoreResult.granted`). */
export type TracedDecision = Decision & { granted?: number | undefined };

/** A store sending each consume as one that may take down to `minCost`, noting what the last one took. */
class UpToStore implements Store {
  minCost = 1;
  granted: number | undefined;

  constructor(private readonly store: Store) {}

  async execute(operation: StoreOperation): Promise<StoreResult> {
    const result = await this.store.execute(operation.kind === 'consume' ? { ...operation, minCost: this.minCost } : operation);
    this.granted = result.granted;
    return result;
  }
}

/** A rule a trace is played on, and its block. */
export type TracedRule = RuleSpec & Pick<LimiterOptions, 'blockDuration'>;

let traceCounter = 0;

/**
 * The consume (its index in the trace) whose charge a `refund-charge` step at `stepIndex` gives
 * back: `pick` among those admitted before it (one may be given back twice). Undefined when none was.
 */
export function chargeIndex(steps: readonly TraceStep[], decisions: readonly Decision[], stepIndex: number): number | undefined {
  const step = steps[stepIndex];
  if (step?.op !== 'refund-charge') return undefined;
  const admitted: number[] = [];
  for (let i = 0; i < stepIndex; i++) if (steps[i]!.op === 'consume' && decisions[i]!.allowed) admitted.push(i);
  return admitted.length === 0 ? undefined : admitted[step.pick % admitted.length];
}

/**
 * Plays one trace on one store under a virtual clock starting at `startMs`; each trace
 * gets its own key prefix so traces never share state. Charges are `comparable`, so runs on two
 * stores compare.
 */
export async function playTrace(store: Store, rule: TracedRule, steps: readonly TraceStep[], startMs: number): Promise<TracedDecision[]> {
  let now = startMs;
  const prefix = `trace${process.pid}-${traceCounter++}`;
  const limiter = createLimiter({ ...rule, store, clock: () => now, prefix, ...STORE_SEMANTICS });
  // Leases go through a limiter of the same rule and prefix, on the same state.
  const upTo = new UpToStore(store);
  const leasing = createLimiter({ ...rule, store: upTo, clock: () => now, prefix, ...STORE_SEMANTICS });
  // What each step returned, as it returned it: a refund spends the charge of the decision it is given.
  const played: Decision[] = [];
  const seen: TracedDecision[] = [];
  for (const [i, step] of steps.entries()) {
    now += step.advanceMs;
    if (step.op === 'lease') {
      upTo.minCost = step.minCost;
      played.push(await leasing.consume('client', { cost: step.cost }));
      seen.push({ ...comparable(played[i]!), granted: upTo.granted });
      continue;
    }
    played.push(await playStep(limiter, step, chargeIndex(steps, played, i), played));
    seen.push(comparable(played[i]!));
  }
  return seen;
}

function playStep(limiter: Limiter, step: TraceStep, charged: number | undefined, played: readonly Decision[]): Promise<Decision> {
  switch (step.op) {
    case 'consume':
      return limiter.consume('client', { cost: step.cost });
    case 'peek':
      return limiter.peek('client');
    case 'refund':
      return limiter.refund('client', { cost: step.cost });
    case 'penalty':
      return callsOf(limiter).penalty('client', step.cost);
    case 'refund-charge':
      return charged === undefined ? limiter.peek('client') : limiter.refund('client', { charge: played[charged]! });
    case 'block':
      return limiter.block('client', step.durationMs);
    default:
      return limiter.reset('client');
  }
}

/** The decision with its charge's token (unique to one store's run) read as 'token', or '' when the rule needs none. */
export function comparable<D extends Pick<Decision, 'charge'>>(decision: D): D {
  const { charge } = decision;
  return charge === undefined ? decision : { ...decision, charge: { ...charge, token: charge.token === '' ? '' : 'token' } };
}

/** The store calls behind a limiter built by `createLimiter`: the 'penalty' operation, until a public method offers it. */
export function callsOf(limiter: Limiter): LimiterCalls {
  return groupMemberOf(limiter)!.calls;
}
