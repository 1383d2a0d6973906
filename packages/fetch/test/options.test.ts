import { createLimiter, TollgateError } from '@tollgate/core';
import { describe, expect, it } from 'vitest';
import { createThrottledFetch } from '../src/index.js';

const limiter = createLimiter({ qps: 10 });

describe('createThrottledFetch refuses a misspelt option, naming it and the option it most likely meant', () => {
  it.each([
    ['maxWiat', { maxWiat: 5 }, 'maxWait'],
    ['maxPuase', { maxPuase: '1m' }, 'maxPause'],
    ['retry.limt', { retry: { limt: 1 } }, 'limit'],
    ['retry.backof', { retry: { backof: 10 } }, 'backoff'],
    ['events.ignoredHeaders', { events: { ignoredHeaders: () => {} } }, 'ignoredHeader'],
  ])('%s', (field, misspelt, closest) => {
    const options = { limiter, ...misspelt };
    let error: unknown;
    try {
      createThrottledFetch(options as never);
    } catch (thrown) {
      error = thrown;
    }
    expect(error).toBeInstanceOf(TollgateError);
    expect(error).toMatchObject({ code: 'ERR_TOLLGATE_INVALID_OPTION', field });
    expect((error as TollgateError).message).toContain(`${field} is not an option here: did you mean ${closest}?`);
  });

  it('takes every option it documents', () => {
    const events = { pause: () => {}, retry: () => {}, ignoredHeader: () => {}, policy: () => {} };
    const retry = { limit: 1, methods: ['GET'], backoff: 10 };
    expect(() => createThrottledFetch({ limiter, maxWait: '1s', maxPause: '1m', prefix: 'p', retry, events })).not.toThrow();
  });
});
