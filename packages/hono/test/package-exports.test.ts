import { describeBuiltPackage } from '@tollgate/testing';

describeBuiltPackage(new URL('..', import.meta.url), '@tollgate/hono');
