import { createLimiter } from '@tollgate/core';
import { type FakeLlm, startFakeLlm } from '@tollgate/testing';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createThrottledFetch } from '../src/index.js';

let llm: FakeLlm;
beforeAll(async () => {
  // Every answer is 20 tokens long; 40 prompt characters are 10 tokens.
  llm = await startFakeLlm({ tokensPerWindow: 1_000_000, completionTokens: () => 20 });
});
afterAll(() => llm?.close());

const chat = (stream: boolean, maxTokens = 100) => ({
  method: 'POST',
  body: JSON.stringify({ messages: [{ role: 'user', content: 'x'.repeat(40) }], max_tokens: maxTokens, stream }),
});

function holdingFetch(tokens: number, maxWait?: number) {
  const limiter = createLimiter({
    limits: [
      { name: 'tokens', algorithm: 'fixed-window', limit: tokens, window: '1m', unit: 'tokens' },
      { name: 'requests', algorithm: 'fixed-window', limit: 100, window: '1m' },
    ],
  });
  const send = createThrottledFetch({
    limiter,
    // The most a call can use: its prompt and every token it may generate.
    cost: async (request) => ({ tokens: 10 + ((await request.json()) as { max_tokens: number }).max_tokens }),
    ...(maxWait === undefined ? {} : { maxWait }),
  });
  // What a peek reports: what is left now of each limit.
  const left = async () => (await limiter.peek(new URL(llm.url).host)).limits.map((limit) => limit.remaining);
  return { send, left };
}

const url = () => `${llm.url}/v1/chat/completions`;

describe('a throttled fetch holding each call’s estimate (cost)', () => {
  it('settles the tokens the answer reports once its body is read: JSON, then a stream', async () => {
    const { send, left } = holdingFetch(1000);
    const json = await send(url(), chat(false));
    // Held: 110 tokens and 1 request, until the body is read.
    expect(await left()).toEqual([890, 99]);
    expect(((await json.json()) as { usage: { total_tokens: number } }).usage.total_tokens).toBe(30);
    await vi.waitFor(async () => expect(await left()).toEqual([970, 99]));
    const stream = await send(url(), chat(true));
    await stream.text();
    await vi.waitFor(async () => expect(await left()).toEqual([940, 98]));
  });

  it('gives an error answer’s whole estimate back', async () => {
    const { send, left } = holdingFetch(1000);
    const refused = await send(url(), {
      method: 'POST',
      body: JSON.stringify({ messages: [{ role: 'user', content: 'x' }], max_tokens: -1 }),
    });
    expect(refused.status).toBe(400);
    await vi.waitFor(async () => expect(await left()).toEqual([1000, 100]));
  });

  it('waits while the estimate does not fit; past maxWait it rejects without sending', async () => {
    const { send, left } = holdingFetch(150, 100);
    const first = await send(url(), chat(false));
    const calls = llm.calls.length;
    await expect(send(url(), chat(false))).rejects.toMatchObject({ code: 'ERR_TOLLGATE_WAIT_TIMEOUT' });
    expect(llm.calls.length).toBe(calls);
    await first.text();
    // Settled at 30, the first call gave 80 back: the next one's 110 fits.
    await vi.waitFor(async () => expect(await left()).toEqual([120, 99]));
    expect((await send(url(), chat(false))).status).toBe(200);
  });
});
