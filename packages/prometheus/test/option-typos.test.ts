import { TollgateError } from '@tollgate/core';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { createAdaptiveMetrics, createTollgateMetrics } from '../src/index.js';

/** Each metrics factory with a misspelt option: `[what, call, field, closest]`. */
const TYPOS: [string, () => unknown, string, string | undefined][] = [
  ['createTollgateMetrics', () => createTollgateMetrics({ registy: new Registry() } as never), 'registy', 'registry'],
  ['createTollgateMetrics', () => createTollgateMetrics({ latencyBucket: [0.1] } as never), 'latencyBucket', 'latencyBuckets'],
  ['createAdaptiveMetrics', () => createAdaptiveMetrics({ prefx: 'app_' } as never), 'prefx', 'prefix'],
  ['createAdaptiveMetrics', () => createAdaptiveMetrics({ namespace: 'app_' } as never), 'namespace', undefined],
];

describe('the metrics factories refuse a misspelt option', () => {
  it.each(TYPOS)('%s: %s', (_what, call, field, closest) => {
    let error: unknown;
    try {
      call();
    } catch (thrown) {
      error = thrown;
    }
    expect(error).toBeInstanceOf(TollgateError);
    expect(error).toMatchObject({ code: 'ERR_TOLLGATE_INVALID_OPTION', field });
    const { message } = error as TollgateError;
    expect(message).toContain(field);
    if (closest === undefined) expect(message).toContain('takes registry, prefix, latencyBuckets');
    else expect(message).toContain(`did you mean ${closest}?`);
  });

  it('takes its own fields', () => {
    const registry = new Registry();
    expect(() => createTollgateMetrics({ registry, prefix: 'app_', latencyBuckets: [0.1] })).not.toThrow();
    expect(() => createAdaptiveMetrics({ registry, prefix: 'app_', latencyBuckets: [0.1] })).not.toThrow();
  });
});
