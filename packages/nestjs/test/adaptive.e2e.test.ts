import { contractSpec, describeAdaptiveAdapter } from '@tollgate/testing';
import { afterEach } from 'vitest';
import { type AdaptiveConcurrencyOptions, adaptiveConcurrency } from '../src/index.js';
import { closeApps, NEST_PLATFORMS } from './serve.js';

afterEach(closeApps);

describeAdaptiveAdapter({
  adaptiveConcurrency,
  frameworks: NEST_PLATFORMS.map(({ name, serveBehind }) => ({
    name,
    serve: (options, routes) => {
      const middleware = adaptiveConcurrency(contractSpec(options) as AdaptiveConcurrencyOptions);
      return { listener: serveBehind(middleware, routes), limiter: middleware.limiter };
    },
  })),
});
