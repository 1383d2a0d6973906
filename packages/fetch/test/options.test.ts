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
    ['headroom.token', { headroom: { token: 500 } }, 'tokens'],
    ['headroom.input_tokens', { headroom: { input_tokens: 500 } }, 'input-tokens'],
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
    const events = { pause: () => {}, retry: () => {}, ignoredHeader: () => {}, policy: () => {}, budget: () => {} };
    const retry = { limit: 1, methods: ['GET'], backoff: 10 };
    const headroom = { requests: 2, tokens: 4000, 'input-tokens': 3000, 'output-tokens': 1000 };
    expect(() => createThrottledFetch({ limiter, maxWait: '1s', maxPause: '1m', prefix: 'p', retry, events, headroom })).not.toThrow();
  });

  it.each([
    ['headroom', 5],
    ['headroom.tokens', { tokens: -1 }],
    ['headroom.tokens', { tokens: 1.5 }],
    ['headroom.requests', { requests: '10' }],
  ])('refuses a bad %s', (field, headroom) => {
    expect(() => createThrottledFetch({ limiter, headroom } as never)).toThrow(
      expect.objectContaining({ code: 'ERR_TOLLGATE_INVALID_OPTION', field }),
    );
  });
});
