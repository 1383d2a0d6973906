import { contractSpec, describeAdaptiveAdapter } from '@tollgate/testing';
import { type AdaptiveConcurrencyOptions, adaptiveConcurrency } from '../src/index.js';
import { FASTIFY_VERSIONS } from './serve.js';

describeAdaptiveAdapter({
  adaptiveConcurrency,
  frameworks: FASTIFY_VERSIONS.map(({ name, serveBehind }) => ({
    name,
    serve: (options, routes) => {
      const plugin = adaptiveConcurrency(contractSpec(options) as AdaptiveConcurrencyOptions);
      return { listener: serveBehind(plugin, routes), limiter: plugin.limiter };
    },
  })),
});
