import { describeReadmeExample } from '@tollgate/testing';

describeReadmeExample(import.meta.url);
