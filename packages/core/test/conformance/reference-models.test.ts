import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createLimiter, type Decision, type LimitSpec, MemoryStore } from '../../src/index.js';
import { specArbitraries, startArbitrary } from './arbitraries.js';

const RUNS = Number(process.env.CONFORMANCE_RUNS ?? 1000) / 5;

/**
 * A consume after `advanceMs`, or — to land on the edges where off-by-one errors live — right
 * at the previous denial's `retryAfterMs` or 1 ms before it.
 */
interface Step {
  advanceMs: number;
  atRetry: -1 | 0 | undefined;
  cost: number;
}

const steps = fc.array(
  fc.record({
    advanceMs: fc.oneof(fc.constant(0), fc.constantFrom(1, 99, 100, 250, 1000), fc.integer({ min: 0, max: 3000 })),
    atRetry: fc.constantFrom(undefined, undefined, -1 as const, 0 as const),
    cost: fc.oneof({ weight: 3, arbitrary: fc.constant(1) }, { weight: 1, arbitrary: fc.integer({ min: 1, max: 6 }) }),
  }),
  { minLength: 1, maxLength: 40 },
);

/** Plays consumes on a memory store; returns each decision with the time and cost it was made at. */
async function play(spec: LimitSpec, trace: readonly Step[], startMs: number) {
  let now = startMs;
  const limiter = createLimiter({ ...spec, store: new MemoryStore(), clock: () => now });
  const played: { atMs: number; cost: number; decision: Decision }[] = [];
  for (const { advanceMs, atRetry, cost } of trace) {
    const last = played.at(-1)?.decision;
    const retry = last !== undefined && !last.allowed && last.retryAfterMs !== Number.POSITIVE_INFINITY;
    now += retry && atRetry !== undefined ? Math.max(0, last.retryAfterMs + atRetry) : advanceMs;
    played.push({ atMs: now, cost, decision: await limiter.consume('client', { cost }) });
  }
  return played;
}

describe('sliding-window-log against its definition', () => {
  it('admits a request exactly when the units admitted in the last window plus its cost fit the limit', async () => {
    await fc.assert(
      fc.asyncProperty(specArbitraries['sliding-window-log']!, steps, startArbitrary, async (spec, trace, startMs) => {
        const { limit, window } = spec as { limit: number; window: number };
        const admitted: { atMs: number; cost: number }[] = [];
        for (const { atMs, cost, decision } of await play(spec, trace, startMs)) {
          const inWindow = admitted.filter((a) => a.atMs > atMs - window).reduce((sum, a) => sum + a.cost, 0);
          expect(decision.allowed).toBe(inWindow + cost <= limit);
          if (decision.allowed) admitted.push({ atMs, cost });
        }
      }),
      { numRuns: RUNS },
    );
  });
});

describe('sliding-window-counter against the Cloudflare formula', () => {
  it('admits a request exactly when prev × (1 − elapsed/window) + curr + cost ≤ limit, in exact fractions', async () => {
    await fc.assert(
      fc.asyncProperty(specArbitraries['sliding-window-counter']!, steps, startArbitrary, async (spec, trace, startMs) => {
        const { limit, window } = spec as { limit: number; window: number };
        const counts = new Map<number, number>();
        for (const { atMs, cost, decision } of await play(spec, trace, startMs)) {
          const index = Math.floor(atMs / window);
          const elapsed = BigInt(atMs - index * window);
          const [prev, curr, w] = [BigInt(counts.get(index - 1) ?? 0), BigInt(counts.get(index) ?? 0), BigInt(window)];
          // prev × (window − elapsed) / window + curr + cost ≤ limit, multiplied out by window.
          const fits = prev * (w - elapsed) + (curr + BigInt(cost)) * w <= BigInt(limit) * w;
          expect(decision.allowed).toBe(fits);
          if (fits) counts.set(index, Number(curr) + cost);
        }
      }),
      { numRuns: RUNS },
    );
  });
});

describe('leaky-bucket shaping against a departure schedule', () => {
  it('gives each admitted request the next free slot, one every period / rate, while the wait fits maxDelay', async () => {
    const shaping = fc.record({ rate: fc.integer({ min: 1, max: 50 }), maxDelay: fc.constantFrom(1, 100, 333, 1000, 5000) });
    await fc.assert(
      fc.asyncProperty(shaping, steps, startArbitrary, async ({ rate, maxDelay }, trace, startMs) => {
        const spec: LimitSpec = { algorithm: 'leaky-bucket', mode: 'shaping', rate, maxDelay };
        const intervalUs = Math.round(1_000_000 / rate);
        const capacity = Math.floor((maxDelay * 1000) / intervalUs) + 1;
        let nextFreeUs = 0;
        for (const { atMs, cost, decision } of await play(spec, trace, startMs)) {
          const startUs = Math.max(atMs * 1000, nextFreeUs);
          const waitUs = startUs - atMs * 1000;
          const fits = cost <= capacity && waitUs <= maxDelay * 1000;
          expect([decision.allowed, decision.delayMs]).toEqual([fits, fits ? Math.ceil(waitUs / 1000) : 0]);
          if (fits) nextFreeUs = startUs + cost * intervalUs;
        }
      }),
      { numRuns: RUNS },
    );
  });
});
