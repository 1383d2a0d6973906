import { describeAdaptiveAdapter, withContractRequests } from '@tollgate/testing';
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { type AdaptiveConcurrencyOptions, adaptiveConcurrency } from '../src/index.js';
import { contractRequest, HONO_VERSIONS } from './serve.js';

describeAdaptiveAdapter({
  adaptiveConcurrency,
  frameworks: HONO_VERSIONS.map(({ name, serve }) => ({
    name,
    serve: (options, routes) => {
      const middleware = adaptiveConcurrency(withContractRequests(options, contractRequest) as AdaptiveConcurrencyOptions);
      return { listener: serve({ use: [middleware], routes }), limiter: middleware.limiter };
    },
  })),
});

describe('adaptiveConcurrency on Hono without a Node response (app.request)', () => {
  it('gives the slot back once the chain answered, a 5xx backing the limit off', async () => {
    const middleware = adaptiveConcurrency({ limit: { algorithm: 'aimd', initialLimit: 10, minLimit: 1 } });
    const app = new Hono();
    app.use(middleware);
    app.get('/fail', (c) => c.text('failed', 500));
    expect((await app.request('/fail')).status).toBe(500);
    expect(middleware.limiter.snapshot()).toMatchObject({ limit: 9, inflight: 0 });
  });
});
