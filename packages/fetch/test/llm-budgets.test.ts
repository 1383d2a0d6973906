import { createLimiter, RedisStore } from '@tollgate/core';
import { type FakeLlm, type RedisTarget, startFakeLlm, startRedis } from '@tollgate/testing';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createThrottledFetch, type ThrottledFetch, type ThrottledFetchOptions } from '../src/index.js';

const started: FakeLlm[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((llm) => llm.close()));
});

// 40 characters and max_tokens 100: 110 tokens a call.
const CALL_TOKENS = 110;
const body = JSON.stringify({ messages: [{ role: 'user', content: 'x'.repeat(40) }], max_tokens: 100 });

/** `callers` loops of `calls` chat calls each, all at once; resolves with the statuses. */
async function load(send: ThrottledFetch, url: string, callers: number, calls: number): Promise<number[]> {
  const statuses: number[] = [];
  await Promise.all(
    Array.from({ length: callers }, async () => {
      for (let i = 0; i < calls; i++) {
        const response = await send(`${url}/v1/chat/completions`, { method: 'POST', body });
        statuses.push(response.status);
        await response.body?.cancel();
      }
    }),
  );
  return statuses;
}

// Real time is the subject: the upstream's token window runs on its own clock.
describe('a throttled fetch in front of an LLM API publishing its token budget', () => {
  it('OpenAI-style: with the headroom of the calls in flight, the upstream never answers 429', async () => {
    const llm = await startFakeLlm({ tokensPerWindow: 1000, windowMs: 1000 });
    started.push(llm);
    const pauses: { header: string; pauseMs: number }[] = [];
    const send = createThrottledFetch({
      limiter: createLimiter({ qps: 1000 }),
      headroom: { tokens: 3 * CALL_TOKENS },
      events: { pause: ({ header, pauseMs }) => pauses.push({ header, pauseMs }) },
    });
    const statuses = await load(send, llm.url, 3, 6);
    expect(statuses).toEqual(Array(18).fill(200));
    expect(pauses.length).toBeGreaterThan(0);
    expect(new Set(pauses.map((p) => p.header))).toEqual(new Set(['x-ratelimit-reset-tokens']));
    // 18 calls of 110 tokens are two windows' worth at least: the calls spread over three.
    // 18 calls of 110 tokens do not fit one window of 1000: nothing went out while the key was paused.
    const arrivals = llm.calls.map((call) => call.at);
    const longestGap = Math.max(...arrivals.slice(1).map((at, i) => at - arrivals[i]!));
    expect(longestGap).toBeGreaterThanOrEqual(Math.min(...pauses.map((p) => p.pauseMs)) - 10);
  });
});

describe('two fetches sharing a RedisStore (as two processes would), Anthropic-style headers', () => {
  let redis: RedisTarget;
  const clients: Redis[] = [];
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => {
    for (const client of clients) client.disconnect();
    await redis?.close();
  });

  function sharedFetch(prefix: string, options: Partial<ThrottledFetchOptions>): ThrottledFetch {
    const client = new Redis(redis.url);
    clients.push(client);
    const store = new RedisStore({ client });
    const limiter = createLimiter({ qps: 1000, store, prefix: `${prefix}:limit` });
    return createThrottledFetch({ limiter, store, prefix: `${prefix}:pause`, ...options });
  }

  it('a budget one of them saw nearly spent holds back the other, which never saw it, until the reset', async () => {
    const llm = await startFakeLlm({ tokensPerWindow: 200, windowMs: 60_000, headers: 'anthropic' });
    started.push(llm);
    const prefix = `llm-${Date.now()}`;
    const pausedBy: string[] = [];
    const first = sharedFetch(prefix, { headroom: { tokens: CALL_TOKENS }, events: { pause: ({ header }) => pausedBy.push(header) } });
    const second = sharedFetch(prefix, { maxWait: 50 });
    // The second answer says 90 tokens remain, no more than one call's 110: the key pauses till the window ends.
    expect(await load(first, llm.url, 1, 2)).toEqual([200, 200]);
    expect(pausedBy).toEqual(['anthropic-ratelimit-tokens-reset']);
    await expect(load(second, llm.url, 1, 1)).rejects.toMatchObject({ code: 'ERR_TOLLGATE_WAIT_TIMEOUT' });
    expect(llm.calls.map((call) => call.status)).toEqual([200, 200]);
  });
});
