import { createAdaptiveLimiter } from '@tollgate/core';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { createAdaptiveMetrics } from '../src/index.js';

/** The value of `name` with exactly these labels in the registry's exposition, undefined when absent. */
async function scraped(registry: Registry, name: string, labels: Record<string, string>): Promise<number | undefined> {
  const wanted = Object.entries(labels)
    .map(([key, value]) => `${key}="${value}"`)
    .join(',');
  const line = (await registry.metrics()).split('\n').find((text) => text.startsWith(`${name}{${wanted}} `));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

describe('adaptive limiter metrics', () => {
  it('export the limit, in flight, partitions and estimates as read at the scrape', async () => {
    const registry = new Registry();
    let now = 0;
    const limiter = createAdaptiveLimiter<string>({
      limit: { algorithm: 'vegas', initialLimit: 10 },
      partitions: { critical: 0.8, batch: 0.2 },
      partition: (name) => name,
      clock: () => now,
    });
    createAdaptiveMetrics({ registry }).observe(limiter, 'api');
    const held = limiter.tryAcquire('critical');
    expect(await scraped(registry, 'tollgate_adaptive_limit', { limiter: 'api' })).toBe(10);
    expect(await scraped(registry, 'tollgate_adaptive_inflight', { limiter: 'api' })).toBe(1);
    expect(await scraped(registry, 'tollgate_adaptive_partition_limit', { limiter: 'api', partition: 'batch' })).toBe(2);
    expect(await scraped(registry, 'tollgate_adaptive_partition_inflight', { limiter: 'api', partition: 'critical' })).toBe(1);
    now += 40;
    if (held.admitted) held.success();
    expect(await scraped(registry, 'tollgate_adaptive_inflight', { limiter: 'api' })).toBe(0);
    expect(await scraped(registry, 'tollgate_adaptive_rtt_estimate_seconds', { limiter: 'api', estimate: 'no_load' })).toBe(0.04);
    expect(await scraped(registry, 'tollgate_adaptive_samples_total', { limiter: 'api', partition: 'critical', outcome: 'success' })).toBe(
      1,
    );
    expect(await scraped(registry, 'tollgate_adaptive_rtt_seconds_count', { limiter: 'api' })).toBe(1);
  });

  it('count rejections by partition and reason, and stop when told', async () => {
    const registry = new Registry();
    const limiter = createAdaptiveLimiter({ limit: 1 });
    const stop = createAdaptiveMetrics({ registry }).observe(limiter, 'worker');
    limiter.tryAcquire();
    limiter.tryAcquire();
    limiter.tryAcquire();
    expect(await scraped(registry, 'tollgate_adaptive_rejections_total', { limiter: 'worker', partition: '', reason: 'limit' })).toBe(2);
    stop();
    limiter.tryAcquire();
    expect(await scraped(registry, 'tollgate_adaptive_rejections_total', { limiter: 'worker', partition: '', reason: 'limit' })).toBe(2);
    expect(await scraped(registry, 'tollgate_adaptive_limit', { limiter: 'worker' })).toBeUndefined();
  });
});
