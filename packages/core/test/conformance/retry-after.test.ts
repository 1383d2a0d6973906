import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MemoryStore } from '../../src/index.js';
import { playTrace, type TraceStep } from '../helpers/trace.js';
import { specArbitraries, startArbitrary, traceArbitrary } from './arbitraries.js';

const RUNS = Number(process.env.CONFORMANCE_RUNS ?? 1000) / 5;

/** The trace up to step `i`, then the consume of step `i` retried `waitMs` later. */
function retried(steps: readonly TraceStep[], i: number, waitMs: number): TraceStep[] {
  const step = steps[i] as Extract<TraceStep, { op: 'consume' }>;
  return [...steps.slice(0, i), { ...step, advanceMs: step.advanceMs + waitMs }];
}

// token-bucket is left out: with a refill rate such as 1/3 per second its floating-point
// refill can make retryAfterMs 1 ms late (never early); the others compute in whole units.
const EXACT = Object.keys(specArbitraries).filter((algorithm) => !algorithm.startsWith('token-bucket'));

describe.each(EXACT)('%s: retryAfterMs is exact', (algorithm) => {
  it(`a denied request passes after exactly retryAfterMs, not 1 ms sooner (${RUNS} random traces)`, async () => {
    await fc.assert(
      fc.asyncProperty(specArbitraries[algorithm]!, traceArbitrary, startArbitrary, async (spec, steps, startMs) => {
        const decisions = await playTrace(new MemoryStore(), spec, steps, startMs);
        for (const [i, decision] of decisions.entries()) {
          const wait = decision.retryAfterMs;
          if (steps[i]!.op !== 'consume' || decision.allowed || wait === Number.POSITIVE_INFINITY) continue;
          const atRetry = await playTrace(new MemoryStore(), spec, retried(steps, i, wait), startMs);
          expect(atRetry[i]!.allowed, `step ${i} retried after ${wait} ms`).toBe(true);
          if (wait > 1) {
            const sooner = await playTrace(new MemoryStore(), spec, retried(steps, i, wait - 1), startMs);
            expect(sooner[i]!.allowed, `step ${i} retried after ${wait - 1} ms`).toBe(false);
          }
        }
      }),
      { numRuns: RUNS },
    );
  });
});
