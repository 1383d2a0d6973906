import { describeExampleApp } from '@tollgate/testing';

describeExampleApp('Express', new URL('..', import.meta.url));
