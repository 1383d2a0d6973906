import { createLimiter, type Decision, type RuleSpec, type Store } from '../../src/index.js';
import { STORE_SEMANTICS } from './stores.js';

export type TraceStep =
  | { op: 'consume'; advanceMs: number; cost: number }
  | { op: 'peek'; advanceMs: number }
  | { op: 'reset'; advanceMs: number }
  | { op: 'refund'; advanceMs: number; cost: number };

let traceCounter = 0;

/**
 * Plays one trace on one store under a virtual clock starting at `startMs`; each trace
 * gets its own key prefix so traces never share state.
 */
export async function playTrace(store: Store, rule: RuleSpec, steps: readonly TraceStep[], startMs: number): Promise<Decision[]> {
  let now = startMs;
  const prefix = `trace${process.pid}-${traceCounter++}`;
  const limiter = createLimiter({ ...rule, store, clock: () => now, prefix, ...STORE_SEMANTICS });
  const decisions: Decision[] = [];
  for (const step of steps) {
    now += step.advanceMs;
    if (step.op === 'consume') decisions.push(await limiter.consume('client', { cost: step.cost }));
    else if (step.op === 'peek') decisions.push(await limiter.peek('client'));
    else if (step.op === 'refund') decisions.push(await limiter.refund('client', { cost: step.cost }));
    else decisions.push(await limiter.reset('client'));
  }
  return decisions;
}
