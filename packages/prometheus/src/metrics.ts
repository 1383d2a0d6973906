import { type Limiter, type LimiterEventName, type LimiterListeners, refuseUnknownFields } from '@tollgate/core';
import { Counter, Gauge, Histogram, type Metric, type Registry, register } from 'prom-client';

export interface TollgateMetricsOptions {
  /** Where the metrics are registered. Default: prom-client's global registry. */
  registry?: Registry;
  /** Start of every metric name. Default `tollgate_`. */
  prefix?: string;
  /** Store latency histogram buckets, in seconds. */
  latencyBuckets?: number[];
}

const METRICS_OPTION_FIELDS = { registry: true, prefix: true, latencyBuckets: true } as const satisfies Record<
  keyof TollgateMetricsOptions,
  true
>;

/** Refuses metrics options holding a field they do not take, naming it and the closest one they do. */
export function refuseUnknownMetricsOptions(options: TollgateMetricsOptions): void {
  refuseUnknownFields(options, METRICS_OPTION_FIELDS);
}

export interface TollgateMetrics {
  /** Listeners for a limiter's or a rule set's `events` option. */
  readonly events: Required<
    Pick<LimiterListeners, 'allowed' | 'denied' | 'delayed' | 'storeError' | 'fallback' | 'breakerOpen' | 'breakerClose'>
  >;
  /** Listens to a limiter's events; returns a function that stops listening. */
  observe(limiter: Limiter): () => void;
}

/** Metric names without the prefix. */
export const METRIC_NAMES = {
  decisions: 'decisions_total',
  storeLatency: 'store_latency_seconds',
  storeErrors: 'store_errors_total',
  fallbacks: 'fallback_decisions_total',
  breakerOpen: 'breaker_open',
} as const;

const DEFAULT_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25];

/**
 * Prometheus metrics for Tollgate limiters. Calling it again with the same registry and
 * prefix reuses the metrics already registered there.
 */
export function createTollgateMetrics(options: TollgateMetricsOptions = {}): TollgateMetrics {
  refuseUnknownMetricsOptions(options);
  const metrics = registerMetrics(options);
  const events = listeners(metrics);
  return {
    events,
    observe(limiter) {
      metrics.breakerOpen.set({ rule: limiter.rule }, limiter.breakerState === 'closed' ? 0 : 1);
      const stops = (Object.keys(events) as LimiterEventName[]).map((name) =>
        limiter.on(name, events[name] as Parameters<typeof limiter.on>[1]),
      );
      return () => {
        for (const stop of stops) stop();
      };
    },
  };
}

interface Metrics {
  decisions: Counter;
  storeLatency: Histogram;
  storeErrors: Counter;
  fallbacks: Counter;
  breakerOpen: Gauge;
}

/** The metrics in `options.registry`, registered there unless they already are. */
function registerMetrics(options: TollgateMetricsOptions): Metrics {
  const registry = options.registry ?? register;
  const prefix = options.prefix ?? 'tollgate_';
  const registers = [registry];
  const metric = <M extends Metric>(key: keyof typeof METRIC_NAMES, create: (name: string) => M): M =>
    reuse(registry, prefix + METRIC_NAMES[key], create);
  return {
    decisions: metric(
      'decisions',
      (name) =>
        new Counter({
          name,
          help: 'Rate-limit decisions on consume, by rule, outcome (allowed, delayed, denied), source (store, cache, lease, fallback, policy) and shadow mode',
          labelNames: ['rule', 'outcome', 'source', 'shadow'],
          registers,
        }),
    ),
    storeLatency: metric(
      'storeLatency',
      (name) =>
        new Histogram({
          name,
          help: 'Time a store call took, answered or failed (timeouts included), by rule',
          labelNames: ['rule'],
          buckets: options.latencyBuckets ?? DEFAULT_BUCKETS,
          registers,
        }),
    ),
    storeErrors: metric(
      'storeErrors',
      (name) =>
        new Counter({
          name,
          help: 'Store calls that failed, by rule and reason (error, timeout)',
          labelNames: ['rule', 'reason'],
          registers,
        }),
    ),
    fallbacks: metric(
      'fallbacks',
      (name) =>
        new Counter({
          name,
          help: 'Decisions made without the store, by rule, reason (error, timeout, breaker-open) and policy (open, closed, fallback)',
          labelNames: ['rule', 'reason', 'policy'],
          registers,
        }),
    ),
    breakerOpen: metric(
      'breakerOpen',
      (name) =>
        new Gauge({ name, help: '1 while the breaker of a rule keeps its store alone, 0 otherwise', labelNames: ['rule'], registers }),
    ),
  };
}

/** The limiter event listeners that update `metrics`. */
function listeners({ decisions, storeLatency, storeErrors, fallbacks, breakerOpen }: Metrics): TollgateMetrics['events'] {
  const decided =
    (outcome: 'allowed' | 'delayed' | 'denied') =>
    ({ rule, decision, latencyMs }: { rule: string; decision: { source: string; shadow?: unknown }; latencyMs: number }) => {
      decisions.inc({ rule, outcome, source: decision.source, shadow: decision.shadow === undefined ? 'false' : 'true' });
      if (decision.source === 'store') storeLatency.observe({ rule }, latencyMs / 1000);
    };
  return {
    allowed: decided('allowed'),
    delayed: decided('delayed'),
    denied: decided('denied'),
    storeError: ({ rule, reason, latencyMs }) => {
      storeErrors.inc({ rule, reason });
      storeLatency.observe({ rule }, latencyMs / 1000);
    },
    fallback: ({ rule, reason, policy }) => fallbacks.inc({ rule, reason, policy }),
    breakerOpen: ({ rule }) => breakerOpen.set({ rule }, 1),
    breakerClose: ({ rule }) => breakerOpen.set({ rule }, 0),
  };
}

function reuse<M extends Metric>(registry: Registry, name: string, create: (name: string) => M): M {
  return (registry.getSingleMetric(name) as M | undefined) ?? create(name);
}
