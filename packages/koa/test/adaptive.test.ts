import { describeAdaptiveAdapter } from '@tollgate/testing';
import { type AdaptiveConcurrencyOptions, adaptiveConcurrency } from '../src/index.js';
import { KOA_VERSIONS } from './serve.js';

describeAdaptiveAdapter({
  adaptiveConcurrency,
  frameworks: KOA_VERSIONS.map(({ name, serve }) => ({
    name,
    serve: (options, routes) => {
      const middleware = adaptiveConcurrency(options as AdaptiveConcurrencyOptions);
      return { listener: serve({ use: [middleware], routes }), limiter: middleware.limiter };
    },
  })),
});
