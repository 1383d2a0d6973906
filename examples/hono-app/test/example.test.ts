import { describeExampleApp } from '@tollgate/testing';

describeExampleApp('Hono', new URL('..', import.meta.url));
