import { itTypesRateLimitOptions } from '@tollgate/testing';
import { describe } from 'vitest';

describe('rateLimit types', () => itTypesRateLimitOptions('@tollgate/koa'));
