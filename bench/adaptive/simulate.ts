// One open-loop run in virtual time: Poisson arrivals (a ramp when `factorAt` varies) against
// the service, each admitted or refused by the setup's limiter, which runs on the simulated clock.
import type { AdaptiveLimiter, AdaptiveSlot } from '@tollgate/core';
import { Service, type ServiceModel } from './service.js';

export const MODEL: ServiceModel = { cores: 8, contention: 0.005 };
/** Mean work per request (uniform from half to one and a half of it), in ms. */
export const WORK_MS = 10;
/** Requests per second the service completes at best: `cores` at a time, WORK_MS each. */
export const CAPACITY = (MODEL.cores * 1000) / WORK_MS;
/** A client gives up after this long: a later response is wasted work, and the server sees it fail. */
export const CLIENT_TIMEOUT_MS = 1000;

export type Priority = 'critical' | 'batch';

export interface RunOptions {
  durationMs: number;
  /** Figures count requests arriving from then on. */
  warmupMs: number;
  /** Load as a multiple of CAPACITY at a time, critical traffic included. */
  factorAt: (nowMs: number) => number;
  /** Critical requests per second, as a multiple of CAPACITY (the rest is batch). */
  critical: number;
  seed: number;
  /** Every so often (ms), the limiter's limit and the window's admitted p99 are recorded. */
  traceEveryMs: number;
}

export interface Outcome {
  goodput: number;
  p50: number;
  p99: number;
  rejectedShare: number;
  success: Record<Priority, number>;
  trace: { atMs: number; factor: number; limit: number | undefined; p99: number | undefined }[];
}

/** mulberry32: the same arrivals for every setup of a seed. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface InFlight {
  arrivedAt: number;
  priority: Priority;
  slot: AdaptiveSlot | undefined;
}

export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

class Tally {
  readonly latencies: number[] = [];
  readonly offered: Record<Priority, number> = { critical: 0, batch: 0 };
  readonly good: Record<Priority, number> = { critical: 0, batch: 0 };
  rejected = 0;
  window: number[] = [];
}

/** Runs one setup; `limiterFor(clock)` builds its limiter on the simulated clock (undefined: none). */
export function simulate(limiterFor: (clock: () => number) => AdaptiveLimiter<Priority> | undefined, options: RunOptions): Outcome {
  const draw = seededRandom(options.seed);
  const service = new Service<InFlight>(MODEL);
  let now = 0;
  const limiter = limiterFor(() => now);
  const tally = new Tally();
  const trace: Outcome['trace'] = [];
  const counted = (request: InFlight) => request.arrivedAt >= options.warmupMs;
  let nextArrival = 0;
  let nextTrace = options.traceEveryMs;
  while (now < options.durationMs) {
    const finishAt = service.nextFinish(now);
    const at = Math.min(finishAt, nextArrival, nextTrace);
    service.advance(at - now);
    now = at;
    if (at === nextTrace) {
      const window = tally.window.sort((a, b) => a - b);
      trace.push({
        atMs: now,
        factor: options.factorAt(now),
        limit: limiter?.snapshot().limit,
        p99: window.length ? percentile(window, 99) : undefined,
      });
      tally.window = [];
      nextTrace += options.traceEveryMs;
    } else if (at === finishAt) {
      const request = service.finish();
      const latency = now - request.arrivedAt;
      if (latency > CLIENT_TIMEOUT_MS) request.slot?.dropped();
      else request.slot?.success();
      tally.window.push(latency);
      if (counted(request)) {
        tally.latencies.push(latency);
        if (latency <= CLIENT_TIMEOUT_MS) tally.good[request.priority] += 1;
      }
    } else {
      arrive(now, draw, options, limiter, service, tally);
      const rate = (options.factorAt(now) * CAPACITY) / 1000;
      nextArrival = now - Math.log(1 - draw()) / rate;
    }
  }
  return outcome(service, tally, options, now, trace);
}

function arrive(
  now: number,
  draw: () => number,
  options: RunOptions,
  limiter: AdaptiveLimiter<Priority> | undefined,
  service: Service<InFlight>,
  tally: Tally,
): void {
  const priority: Priority = draw() * options.factorAt(now) < options.critical ? 'critical' : 'batch';
  const workMs = WORK_MS * (0.5 + draw());
  const counted = now >= options.warmupMs;
  if (counted) tally.offered[priority] += 1;
  if (limiter === undefined) {
    service.start(workMs, { arrivedAt: now, priority, slot: undefined });
    return;
  }
  const admission = limiter.tryAcquire(priority);
  if (admission.admitted) service.start(workMs, { arrivedAt: now, priority, slot: admission });
  else if (counted) tally.rejected += 1;
}

function outcome(service: Service<InFlight>, tally: Tally, options: RunOptions, end: number, trace: Outcome['trace']): Outcome {
  // Requests still in service at the end have waited at least this long: left out, they would hide a collapse.
  const unfinished: number[] = [];
  while (service.active > 0) {
    const request = service.finish();
    if (request.arrivedAt >= options.warmupMs) unfinished.push(end - request.arrivedAt);
  }
  const latencies = [...tally.latencies, ...unfinished].sort((a, b) => a - b);
  const offered = tally.offered.critical + tally.offered.batch;
  const seconds = (end - options.warmupMs) / 1000;
  return {
    goodput: (tally.good.critical + tally.good.batch) / seconds,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    rejectedShare: offered === 0 ? 0 : tally.rejected / offered,
    success: {
      critical: tally.offered.critical === 0 ? 1 : tally.good.critical / tally.offered.critical,
      batch: tally.offered.batch === 0 ? 1 : tally.good.batch / tally.offered.batch,
    },
    trace,
  };
}
