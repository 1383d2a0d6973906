// Figures of one setup's run, by phase: goodput, latency of admitted requests, rejections, success by class.
import type { Phase, Sent } from './load.js';

export interface PhaseFigures {
  factor: number;
  goodput: number;
  goodputShare: number;
  p50Ms: number;
  p99Ms: number;
  rejectedShare: number;
  timedOutShare: number;
  criticalSuccess: number;
  batchSuccess: number;
}

const TRACE_BUCKET_MS = 500;

export function summarize(
  sent: Sent[],
  phases: Phase[],
  { settleMs, timeoutMs, capacity }: { settleMs: number; timeoutMs: number; capacity: number },
): { phases: PhaseFigures[]; latency: { atMs: number; factor: number; p99Ms: number | undefined }[] } {
  const ok = (s: Sent) => s.status === 200 && s.latencyMs <= timeoutMs;
  let phaseStart = 0;
  const figures = phases.map((phase, index) => {
    const from = phaseStart + settleMs;
    phaseStart += phase.durationMs;
    const window = sent.filter((s) => s.phase === index && s.atMs >= from);
    const good = window.filter(ok);
    const latencies = good.map((s) => s.latencyMs).sort((a, b) => a - b);
    const goodput = good.length / ((phaseStart - from) / 1000);
    return {
      factor: phase.factor,
      goodput: Math.round(goodput),
      goodputShare: round(goodput / capacity, 3),
      p50Ms: round(quantile(latencies, 0.5) ?? 0),
      p99Ms: round(quantile(latencies, 0.99) ?? 0),
      rejectedShare: round(
        share(window, (s) => s.status === 503 || s.status === 429),
        3,
      ),
      timedOutShare: round(
        share(window, (s) => s.status === undefined),
        3,
      ),
      criticalSuccess: round(
        share(
          window.filter((s) => s.critical),
          ok,
        ),
        4,
      ),
      batchSuccess: round(
        share(
          window.filter((s) => !s.critical),
          ok,
        ),
        4,
      ),
    };
  });
  return { phases: figures, latency: latencyTrace(sent, phases, ok) };
}

/** The p99 of the admitted requests sent in each half second, for the ramp chart. */
function latencyTrace(sent: Sent[], phases: Phase[], ok: (s: Sent) => boolean) {
  const buckets = new Map<number, number[]>();
  for (const s of sent.filter(ok)) {
    const bucket = Math.floor(s.atMs / TRACE_BUCKET_MS);
    buckets.set(bucket, [...(buckets.get(bucket) ?? []), s.latencyMs]);
  }
  const totalMs = phases.reduce((sum, phase) => sum + phase.durationMs, 0);
  return Array.from({ length: Math.ceil(totalMs / TRACE_BUCKET_MS) }, (_, bucket) => {
    const atMs = bucket * TRACE_BUCKET_MS;
    const latencies = (buckets.get(bucket) ?? []).sort((a, b) => a - b);
    return { atMs, factor: factorAt(phases, atMs), p99Ms: quantile(latencies, 0.99) };
  });
}

export function factorAt(phases: Phase[], atMs: number): number {
  let end = 0;
  for (const phase of phases) {
    end += phase.durationMs;
    if (atMs < end) return phase.factor;
  }
  return phases.at(-1)?.factor ?? 0;
}

const quantile = (sorted: number[], q: number) =>
  sorted.length === 0 ? undefined : sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
const share = (items: Sent[], test: (s: Sent) => boolean) => (items.length === 0 ? 1 : items.filter(test).length / items.length);
const round = (value: number, digits = 1) => Number(value.toFixed(digits));
