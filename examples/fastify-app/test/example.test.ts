import { describeExampleApp } from '@tollgate/testing';

// Fastify sends a problem+json body with its charset.
describeExampleApp('Fastify', new URL('..', import.meta.url), { problemContentType: 'application/problem+json; charset=utf-8' });
