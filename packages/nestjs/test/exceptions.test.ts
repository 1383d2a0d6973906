import { createHttpLimiter, type HttpRequestInfo } from '@tollgate/core';
import { describe, expect, it } from 'vitest';
import { RateLimitRejectedException, type RejectVerdict } from '../src/index.js';

const request: HttpRequestInfo = { ip: '203.0.113.7', method: 'GET', path: '/', headers: {}, raw: {} };

async function rejection(options: object): Promise<RejectVerdict> {
  const http = createHttpLimiter({ perMinute: 1, ...options });
  await http.check(request);
  const verdict = await http.check(request);
  if (verdict.action !== 'reject') throw new Error('expected a rejection');
  return verdict;
}

describe('RateLimitRejectedException', () => {
  it('carries the status and the body: the text, or the object of a JSON body', async () => {
    const text = await rejection({});
    expect([new RateLimitRejectedException(text).getStatus(), new RateLimitRejectedException(text).getResponse()]).toEqual([
      429,
      text.body,
    ]);
    const json = await rejection({ responseType: 'problem+json' });
    expect(new RateLimitRejectedException(json).getResponse()).toEqual(JSON.parse(json.body));
    const message = { error: 'slow down' };
    expect(new RateLimitRejectedException(await rejection({ message })).getResponse()).toEqual(message);
  });
});
