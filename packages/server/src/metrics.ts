import type { LimiterListeners } from '@tollgate/core';
import { createTollgateMetrics } from '@tollgate/prometheus';
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { type DescriptorOutcome, isOver } from './service/response.js';

export type CallOutcome = 'OK' | 'OVER_LIMIT' | 'error';

/** The server's metrics, beside those of `@tollgate/prometheus` for every limiter (labelled by the descriptor's path). */
export interface ServerMetrics {
  /** For every limiter's `events`. */
  readonly limiterEvents: LimiterListeners;
  call(transport: 'grpc' | 'http', outcome: CallOutcome, seconds: number): void;
  descriptor(domain: string, metricKey: string, outcome: DescriptorOutcome): void;
  configLoaded(result: 'success' | 'error', domains?: number): void;
}

export function createServerMetrics(registry: Registry, prefix = 'tollgate_'): ServerMetrics {
  const registers = [registry];
  const calls = new Counter({
    name: `${prefix}server_calls_total`,
    help: 'ShouldRateLimit calls and HTTP checks, by transport (grpc, http) and overall code (OK, OVER_LIMIT, error)',
    labelNames: ['transport', 'code'],
    registers,
  });
  const durations = new Histogram({
    name: `${prefix}server_call_duration_seconds`,
    help: 'Time from a call arriving to its answer, by transport',
    labelNames: ['transport'],
    buckets: [0.0002, 0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25],
    registers,
  });
  const descriptors = new Counter({
    name: `${prefix}server_descriptors_total`,
    help: 'Descriptors checked against a limit, by domain, descriptor (named as envoyproxy/ratelimit names its stats), code as decided (OK, OVER_LIMIT) and shadow mode (which answers OK regardless)',
    labelNames: ['domain', 'descriptor', 'code', 'shadow'],
    registers,
  });
  const reloads = new Counter({
    name: `${prefix}server_config_loads_total`,
    help: 'Config loads, by result',
    labelNames: ['result'],
    registers,
  });
  const domains = new Gauge({ name: `${prefix}server_config_domains`, help: 'Domains in the config in force', registers });
  // Label sets bound once and kept: prom-client hashes a label object on every call otherwise.
  const callChildren = new Map<string, { count: () => void; time: (seconds: number) => void }>();
  const descriptorChildren = new Map<string, { inc(): void }>();
  return {
    limiterEvents: createTollgateMetrics({ registry, prefix }).events,
    call(transport, code, seconds) {
      const id = `${transport} ${code}`;
      let child = callChildren.get(id);
      if (child === undefined) {
        const counter = calls.labels(transport, code);
        const histogram = durations.labels(transport);
        child = { count: () => counter.inc(), time: (s) => histogram.observe(s) };
        callChildren.set(id, child);
      }
      child.count();
      child.time(seconds);
    },
    descriptor(domain, metricKey, outcome) {
      const shadow = outcome.kind === 'decided' ? outcome.decision.shadow : undefined;
      const code = isOver(outcome) || shadow?.allowed === false ? 'OVER_LIMIT' : 'OK';
      const shadowed = shadow === undefined ? 'false' : 'true';
      const id = `${domain}\0${metricKey}\0${code}\0${shadowed}`;
      let child = descriptorChildren.get(id);
      if (child === undefined) {
        // The label sets are as many as the config's descriptors (and, with detailed_metric or value_to_metric, their values).
        if (descriptorChildren.size >= 10_000) descriptorChildren.clear();
        child = descriptors.labels(domain, metricKey, code, shadowed);
        descriptorChildren.set(id, child);
      }
      child.inc();
    },
    configLoaded(result, count) {
      reloads.inc({ result });
      if (count !== undefined) domains.set(count);
    },
  };
}
