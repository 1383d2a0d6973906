import type { AdaptiveLimiter, AdaptiveSnapshot } from '@tollgate/core';
import { Counter, Gauge, Histogram, type Metric, type Registry, register } from 'prom-client';
import { refuseUnknownMetricsOptions, type TollgateMetricsOptions } from './metrics.js';

export interface AdaptiveMetrics {
  /**
   * Exports a limiter's limit, in flight, queue and estimates (read at each scrape) and counts its
   * samples and rejections, under the label `limiter="<name>"`; returns a function that stops.
   */
  observe(limiter: AdaptiveLimiter<never>, name: string): () => void;
}

/** Adaptive limiter metric names without the prefix. */
export const ADAPTIVE_METRIC_NAMES = {
  limit: 'adaptive_limit',
  inflight: 'adaptive_inflight',
  queued: 'adaptive_queued',
  partitionLimit: 'adaptive_partition_limit',
  partitionInflight: 'adaptive_partition_inflight',
  rttEstimate: 'adaptive_rtt_estimate_seconds',
  rtt: 'adaptive_rtt_seconds',
  samples: 'adaptive_samples_total',
  rejections: 'adaptive_rejections_total',
} as const;

const DEFAULT_RTT_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

/** The limiters observed through one registry, read at each of its scrapes. */
const observedIn = new WeakMap<Registry, Map<string, AdaptiveLimiter<never>>>();

/**
 * Prometheus metrics for adaptive concurrency limiters. Calling it again with the same registry and
 * prefix reuses the metrics already registered there.
 */
export function createAdaptiveMetrics(options: TollgateMetricsOptions = {}): AdaptiveMetrics {
  refuseUnknownMetricsOptions(options);
  const registry = options.registry ?? register;
  let observed = observedIn.get(registry);
  if (observed === undefined) {
    observed = new Map();
    observedIn.set(registry, observed);
  }
  const limiters = observed;
  const metrics = registerMetrics(registry, options.prefix ?? 'tollgate_', () => limiters, options.latencyBuckets);
  return {
    observe(limiter, name) {
      limiters.set(name, limiter);
      const stops = [
        limiter.on('sample', ({ partition, sample }) => {
          metrics.samples.inc({ limiter: name, partition: partition ?? '', outcome: sample.dropped ? 'dropped' : 'success' });
          metrics.rtt.observe({ limiter: name }, sample.rttMs / 1000);
        }),
        limiter.on('rejected', ({ partition, reason }) => metrics.rejections.inc({ limiter: name, partition: partition ?? '', reason })),
      ];
      return () => {
        for (const stop of stops) stop();
        if (limiters.get(name) === limiter) limiters.delete(name);
      };
    },
  };
}

type Limiters = () => ReadonlyMap<string, AdaptiveLimiter<never>>;

type MetricOf = <M extends Metric>(key: keyof typeof ADAPTIVE_METRIC_NAMES, create: (name: string) => M) => M;

function registerMetrics(registry: Registry, prefix: string, limiters: Limiters, buckets: number[] | undefined) {
  const registers = [registry];
  const metric: MetricOf = (key, create) =>
    (registry.getSingleMetric(prefix + ADAPTIVE_METRIC_NAMES[key]) as ReturnType<typeof create> | undefined) ??
    create(prefix + ADAPTIVE_METRIC_NAMES[key]);
  registerGauges(metric, registers, limiters);
  const rtt = metric(
    'rtt',
    (name) =>
      new Histogram({
        name,
        help: 'Round trips of the requests sampled',
        labelNames: ['limiter'],
        buckets: buckets ?? DEFAULT_RTT_BUCKETS,
        registers,
      }),
  );
  const samples = metric(
    'samples',
    (name) =>
      new Counter({
        name,
        help: 'Requests that gave back their slot with a sample, by partition and outcome (success, dropped)',
        labelNames: ['limiter', 'partition', 'outcome'],
        registers,
      }),
  );
  const rejections = metric(
    'rejections',
    (name) =>
      new Counter({
        name,
        help: 'Requests refused a slot, by partition and reason (limit, queue-full, timeout, closed)',
        labelNames: ['limiter', 'partition', 'reason'],
        registers,
      }),
  );
  return { rtt, samples, rejections };
}

/** The gauges, read from the observed limiters' snapshots at each scrape. */
function registerGauges(metric: MetricOf, registers: Registry[], limiters: Limiters): void {
  const gauge = (
    key: keyof typeof ADAPTIVE_METRIC_NAMES,
    help: string,
    labelNames: string[],
    read: (gauge: Gauge, snapshots: Snapshots) => void,
  ) => metric(key, (name) => new Gauge({ name, help, labelNames, registers, collect: collector(limiters, read) }));
  gauge(
    'limit',
    'The concurrency limit an adaptive limiter enforces now',
    ['limiter'],
    each(({ limit }) => limit),
  );
  gauge(
    'inflight',
    'Requests holding a slot of an adaptive limiter',
    ['limiter'],
    each(({ inflight }) => inflight),
  );
  gauge(
    'queued',
    'Requests waiting for a slot of an adaptive limiter',
    ['limiter'],
    each(({ queued }) => queued),
  );
  gauge('partitionLimit', 'Guaranteed slots of a partition of an adaptive limiter', ['limiter', 'partition'], eachPartition('limit'));
  gauge('partitionInflight', 'Requests holding a slot in a partition', ['limiter', 'partition'], eachPartition('inflight'));
  gauge(
    'rttEstimate',
    'Round-trip estimates of the limit algorithm (no_load: Vegas, long: Gradient2)',
    ['limiter', 'estimate'],
    rttEstimates,
  );
}

type Snapshots = readonly (readonly [string, AdaptiveSnapshot])[];

/** A gauge's `collect`: every observed limiter's snapshot, read afresh at each scrape. */
function collector(limiters: Limiters, read: (gauge: Gauge, snapshots: Snapshots) => void) {
  return function (this: Gauge) {
    this.reset();
    read(
      this,
      [...limiters()].map(([name, limiter]) => [name, limiter.snapshot()] as const),
    );
  };
}

const each = (value: (snapshot: AdaptiveSnapshot) => number) => (gauge: Gauge, snapshots: Snapshots) => {
  for (const [limiter, snapshot] of snapshots) gauge.set({ limiter }, value(snapshot));
};

const eachPartition = (field: 'limit' | 'inflight') => (gauge: Gauge, snapshots: Snapshots) => {
  for (const [limiter, snapshot] of snapshots)
    for (const partition of snapshot.partitions) gauge.set({ limiter, partition: partition.name }, partition[field]);
};

function rttEstimates(gauge: Gauge, snapshots: Snapshots): void {
  for (const [limiter, { estimates }] of snapshots) {
    if (estimates.noLoadRttMs !== undefined) gauge.set({ limiter, estimate: 'no_load' }, estimates.noLoadRttMs / 1000);
    if (estimates.longRttMs !== undefined) gauge.set({ limiter, estimate: 'long' }, estimates.longRttMs / 1000);
  }
}
