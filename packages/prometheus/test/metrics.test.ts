import { createLimiter, MemoryStore, type Store } from '@tollgate/core';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { createTollgateMetrics } from '../src/index.js';

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** Parses the Prometheus text exposition format (the subset prom-client writes). */
function parseExposition(text: string): { samples: Sample[]; types: Record<string, string> } {
  const samples: Sample[] = [];
  const types: Record<string, string> = {};
  for (const line of text.split('\n')) {
    if (line === '') continue;
    const type = /^# TYPE (\S+) (\S+)$/.exec(line);
    if (type) {
      types[type[1]!] = type[2]!;
      continue;
    }
    if (line.startsWith('#')) continue;
    const sample = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!sample) throw new Error(`unparsable line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, key, value] of (sample[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[key!] = value!;
    samples.push({ name: sample[1]!, labels, value: Number(sample[3]) });
  }
  return { samples, types };
}

async function scrape(registry: Registry) {
  const { samples, types } = parseExposition(await registry.metrics());
  const value = (name: string, labels: Record<string, string>) =>
    samples.find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))?.value;
  return { samples, types, value };
}

/** A store that fails every call while `failing` is set. */
function switchableStore() {
  const inner = new MemoryStore();
  const control = { failing: false };
  const store: Store = {
    execute: (operation) => (control.failing ? Promise.reject(new Error('down')) : inner.execute(operation)),
  };
  return { store, control };
}

describe('@tollgate/prometheus', () => {
  it('counts decisions by rule, outcome, source and shadow mode', async () => {
    const registry = new Registry();
    const metrics = createTollgateMetrics({ registry });
    const login = createLimiter({ rule: 'login', qps: 1, burst: 2, events: metrics.events });
    const search = createLimiter({ rule: 'search', qps: 1, burst: 1, shadow: true });
    metrics.observe(search);
    for (let i = 0; i < 5; i++) await login.consume('a');
    for (let i = 0; i < 3; i++) await search.consume('a');

    const { value, types } = await scrape(registry);
    expect(types.tollgate_decisions_total).toBe('counter');
    const decisions = 'tollgate_decisions_total';
    expect(value(decisions, { rule: 'login', outcome: 'allowed', source: 'store', shadow: 'false' })).toBe(2);
    expect(value(decisions, { rule: 'login', outcome: 'denied', source: 'store', shadow: 'false' })).toBe(3);
    expect(value(decisions, { rule: 'search', outcome: 'allowed', shadow: 'true' })).toBe(1);
    expect(value(decisions, { rule: 'search', outcome: 'denied', shadow: 'true' })).toBe(2);
    expect(value('tollgate_store_latency_seconds_count', { rule: 'login' })).toBe(5);
    expect(types.tollgate_store_latency_seconds).toBe('histogram');
  });

  it('reports store errors, fallback decisions and the breaker state', async () => {
    const registry = new Registry();
    const metrics = createTollgateMetrics({ registry });
    const { store, control } = switchableStore();
    const limiter = createLimiter({ rule: 'api', qps: 100, store, breaker: { failureThreshold: 2, coolDownMs: 60_000 } });
    const stop = metrics.observe(limiter);
    expect((await scrape(registry)).value('tollgate_breaker_open', { rule: 'api' })).toBe(0);

    control.failing = true;
    for (let i = 0; i < 5; i++) await limiter.consume('a');
    let scraped = await scrape(registry);
    expect(scraped.value('tollgate_store_errors_total', { rule: 'api', reason: 'error' })).toBe(2);
    expect(scraped.value('tollgate_fallback_decisions_total', { rule: 'api', reason: 'error', policy: 'open' })).toBe(2);
    expect(scraped.value('tollgate_fallback_decisions_total', { rule: 'api', reason: 'breaker-open', policy: 'open' })).toBe(3);
    expect(scraped.value('tollgate_decisions_total', { rule: 'api', outcome: 'allowed', source: 'policy' })).toBe(5);
    expect(scraped.value('tollgate_breaker_open', { rule: 'api' })).toBe(1);
    expect(scraped.value('tollgate_store_latency_seconds_count', { rule: 'api' })).toBe(2);

    stop();
    await limiter.consume('a');
    scraped = await scrape(registry);
    expect(scraped.value('tollgate_decisions_total', { rule: 'api', outcome: 'allowed', source: 'policy' })).toBe(5);
  });

  it('reuses metrics already in the registry, and honours a prefix', async () => {
    const registry = new Registry();
    createTollgateMetrics({ registry, prefix: 'edge_' });
    const again = createTollgateMetrics({ registry, prefix: 'edge_' });
    await createLimiter({ qps: 1, events: again.events }).consume('a');
    const { value } = await scrape(registry);
    expect(value('edge_decisions_total', { rule: 'default', outcome: 'allowed' })).toBe(1);
  });
});
