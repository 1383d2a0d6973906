import { markdownSample, VirtualClock } from '@tollgate/testing';
import { describe, expect, it } from 'vitest';
import { createHttpLimiter, type HttpRequestInfo, type HttpVerdict, mergeRateLimitHeaders } from '../../src/index.js';

const DOC = new URL('../../HTTP.md', import.meta.url);
const request: HttpRequestInfo = { ip: '203.0.113.7', method: 'GET', path: '/', headers: {}, raw: {} };

/** The sample's `name: value` lines as the verdict has those fields (a status line stays as the verdict's status says). */
function asVerdictShows(sample: readonly string[], verdict: HttpVerdict): string[] {
  if (verdict.action === 'skip') throw new Error('skipped');
  return sample.map((line) => {
    if (line.startsWith('HTTP/1.1 ')) return `HTTP/1.1 ${verdict.action === 'reject' ? verdict.status : 200} Too Many Requests`;
    const name = line.slice(0, line.indexOf(':'));
    return `${name}: ${verdict.headers.find(([field]) => field === name)?.[1] ?? '(absent)'}`;
  });
}

async function after(count: number, options: Parameters<typeof createHttpLimiter>[0]): Promise<HttpVerdict> {
  const http = createHttpLimiter(options);
  let verdict: HttpVerdict = await http.check(request);
  for (let i = 1; i < count; i++) verdict = await http.check(request);
  return verdict;
}

describe("packages/core/HTTP.md's header samples are what the HTTP layer sends", () => {
  it('two limits, after three requests at once', async () => {
    const clock = new VirtualClock();
    const limits = [
      { name: 'per-second', qps: 5, burst: 10 },
      { name: 'per-day', perDay: 10_000 },
    ];
    const sample = markdownSample(DOC, 'two-limits');
    expect(asVerdictShows(sample, await after(3, { limits, clock: clock.now }))).toEqual(sample);
  });

  it('the fourth request on 3 per minute', async () => {
    const clock = new VirtualClock();
    const sample = markdownSample(DOC, 'rejected');
    expect(asVerdictShows(sample, await after(4, { perMinute: 3, clock: clock.now }))).toEqual(sample);
  });

  it("an app-level limiter's fields merged with a route's", async () => {
    const clock = new VirtualClock();
    const [app, route] = await Promise.all([after(3, { perMinute: 100, clock: clock.now }), after(3, { qps: 2, clock: clock.now })]);
    if (app.action === 'skip' || route.action === 'skip') throw new Error('skipped');
    const onResponse = new Map(app.headers);
    const merged = mergeRateLimitHeaders(route.headers, (name) => onResponse.get(name));
    const sample = markdownSample(DOC, 'merged');
    expect(asVerdictShows(sample, { ...route, headers: [...merged] })).toEqual(sample);
  });

  it.each(['draft-6', 'draft-7', 'draft-8'] as const)('the fields of %s, after the first request', async (headers) => {
    const clock = new VirtualClock();
    const sample = markdownSample(DOC, headers);
    expect(asVerdictShows(sample, await after(1, { windowMs: 60_000, limit: 5, headers, clock: clock.now }))).toEqual(sample);
  });
});
