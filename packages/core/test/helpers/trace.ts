import { createLimiter, type Decision, type Limiter, type RuleSpec, type Store } from '../../src/index.js';
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
  | { op: 'refund-charge'; advanceMs: number; pick: number };

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
export async function playTrace(store: Store, rule: RuleSpec, steps: readonly TraceStep[], startMs: number): Promise<Decision[]> {
  let now = startMs;
  const prefix = `trace${process.pid}-${traceCounter++}`;
  const limiter = createLimiter({ ...rule, store, clock: () => now, prefix, ...STORE_SEMANTICS });
  // What each step returned, as it returned it: a refund spends the charge of the decision it is given.
  const played: Decision[] = [];
  const seen: Decision[] = [];
  for (const [i, step] of steps.entries()) {
    now += step.advanceMs;
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
