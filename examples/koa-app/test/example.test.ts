import { describeExampleApp } from '@tollgate/testing';

describeExampleApp('Koa', new URL('..', import.meta.url));
