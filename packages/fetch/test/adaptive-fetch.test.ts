import { describe, expect, it } from 'vitest';
import { createAdaptiveFetch } from '../src/index.js';

/** A fetch answering with the statuses given, in turn, each after the clock moved `rttMs`. */
function upstream(statuses: number[], clock: { now: number }, rttMs = 10) {
  const seen: string[] = [];
  const fetch = async (request: Request) => {
    seen.push(new URL(request.url).host);
    clock.now += rttMs;
    return new Response('', { status: statuses.shift() ?? 200 });
  };
  return { fetch: fetch as typeof globalThis.fetch, seen };
}

describe('createAdaptiveFetch', () => {
  it('backs an upstream off on 429 and 503, and grows again on successes, per host', async () => {
    const clock = { now: 0 };
    const { fetch, seen } = upstream([429, 503, 200], clock);
    const adaptive = createAdaptiveFetch({ fetch, clock: () => clock.now, limit: { algorithm: 'aimd', initialLimit: 10, minLimit: 1 } });
    expect((await adaptive('https://api.example.com/a')).status).toBe(429);
    expect((await adaptive('https://api.example.com/b')).status).toBe(503);
    // 10 × 0.9 = 9, 9 × 0.9 = 8.1 → 8.
    expect(adaptive.limiterOf('api.example.com').snapshot().limit).toBe(8);
    await adaptive('https://other.example.com/');
    expect(adaptive.limiterOf('other.example.com').snapshot().limit).toBe(10);
    expect(seen).toEqual(['api.example.com', 'api.example.com', 'other.example.com']);
  });

  it('counts a slow answer and a network failure as losses, an aborted call as nothing', async () => {
    const clock = { now: 0 };
    const { fetch: slow } = upstream([200], clock, 6000);
    const adaptive = createAdaptiveFetch({
      fetch: slow,
      clock: () => clock.now,
      limit: { algorithm: 'aimd', initialLimit: 10, minLimit: 1, timeoutMs: 5000 },
    });
    await adaptive('https://api.example.com/');
    expect(adaptive.limiterOf('api.example.com').snapshot().limit).toBe(9);
    const failing = createAdaptiveFetch({
      fetch: async () => {
        throw new TypeError('fetch failed');
      },
      limit: { algorithm: 'aimd', initialLimit: 10, minLimit: 1 },
    });
    await expect(failing('https://api.example.com/')).rejects.toThrow('fetch failed');
    expect(failing.limiterOf('api.example.com').snapshot()).toMatchObject({ limit: 9, inflight: 0 });
    const controller = new AbortController();
    controller.abort();
    const aborted = createAdaptiveFetch({
      fetch: async (request) => {
        throw (request as Request).signal.reason;
      },
      limit: { algorithm: 'aimd', initialLimit: 10, minLimit: 1 },
    });
    await expect(aborted('https://api.example.com/', { signal: controller.signal })).rejects.toThrow();
    expect(aborted.limiterOf('api.example.com').snapshot()).toMatchObject({ limit: 10, inflight: 0 });
  });

  it('holds a call while every slot is taken, and rejects it unsent past queue.maxWaitMs', async () => {
    let answer: () => void = () => {};
    const sent: string[] = [];
    const adaptive = createAdaptiveFetch({
      limit: 1,
      queue: { maxWaitMs: 20 },
      fetch: async (request) => {
        sent.push((request as Request).url);
        await new Promise<void>((resolve) => {
          answer = resolve;
        });
        return new Response('ok');
      },
    });
    const first = adaptive('https://api.example.com/1');
    await expect(adaptive('https://api.example.com/2')).rejects.toMatchObject({
      code: 'ERR_TOLLGATE_WAIT_TIMEOUT',
      field: 'queue.maxWaitMs',
    });
    answer();
    await first;
    expect(sent).toEqual(['https://api.example.com/1']);
  });

  it('refuses an unknown option and a bad limit at once', () => {
    expect(() => createAdaptiveFetch({ limt: 3 } as never)).toThrow(/did you mean limit\?/);
    expect(() => createAdaptiveFetch({ limit: { algorithm: 'aimd', backoffRatio: 2 } })).toThrow(
      expect.objectContaining({ field: 'limit.backoffRatio' }),
    );
  });
});
