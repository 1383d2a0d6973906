import { afterEach, describe, expect, it } from 'vitest';
import { type FakeLlm, type FakeLlmOptions, startFakeLlm } from '../src/index.js';

const started: FakeLlm[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((llm) => llm.close()));
});

async function fakeLlm(options: FakeLlmOptions): Promise<FakeLlm> {
  const llm = await startFakeLlm(options);
  started.push(llm);
  return llm;
}

function chat(llm: FakeLlm, body: object): Promise<Response> {
  return fetch(`${llm.url}/v1/chat/completions`, {
    method: 'POST',
    body: JSON.stringify(body),
    headers: { 'content-type': 'application/json' },
  });
}

// 40 characters: 10 prompt tokens.
const MESSAGES = [{ role: 'user', content: 'x'.repeat(40) }];

describe('the fake LLM upstream', () => {
  it('answers JSON with its usage and OpenAI-style budget headers', async () => {
    const llm = await fakeLlm({ tokensPerWindow: 1000, requestsPerWindow: 50 });
    const first = await chat(llm, { messages: MESSAGES, max_tokens: 30, user: 'ada' });
    expect(first.status).toBe(200);
    expect((await first.json()).usage).toEqual({ prompt_tokens: 10, completion_tokens: 30, total_tokens: 40 });
    expect(first.headers.get('x-ratelimit-limit-tokens')).toBe('1000');
    expect(first.headers.get('x-ratelimit-remaining-requests')).toBe('49');
    // Headers go out before the call is charged (as with a stream): the second answer shows the first's 40 tokens.
    const second = await chat(llm, { messages: MESSAGES, max_tokens: 5 });
    expect(second.headers.get('x-ratelimit-remaining-tokens')).toBe('960');
    expect(second.headers.get('x-ratelimit-reset-tokens')).toMatch(/^(59\.\d+s|1m0s)$/);
    expect(llm.calls).toMatchObject([
      { status: 200, user: 'ada', tokens: 40 },
      { status: 200, user: undefined, tokens: 15 },
    ]);
  });

  it('streams tokens over SSE and ends with a usage event and [DONE]', async () => {
    const llm = await fakeLlm({ tokensPerWindow: 1000, completionTokens: () => 4 });
    const response = await chat(llm, { messages: MESSAGES, max_tokens: 100, stream: true });
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const events = (await response.text()).split('\n\n').filter(Boolean);
    expect(events).toHaveLength(4 + 2);
    expect(JSON.parse(events[0]!.slice('data: '.length)).choices[0].delta.content).toBe('t0 ');
    expect(JSON.parse(events[4]!.slice('data: '.length)).usage).toEqual({ prompt_tokens: 10, completion_tokens: 4, total_tokens: 14 });
    expect(events[5]).toBe('data: [DONE]');
    expect(llm.calls).toMatchObject([{ status: 200, tokens: 14 }]);
  });

  it('answers 429 with Retry-After once its token budget is spent, and serves again in the next window', async () => {
    const llm = await fakeLlm({ tokensPerWindow: 50, windowMs: 400 });
    expect((await chat(llm, { messages: MESSAGES, max_tokens: 45 })).status).toBe(200);
    const refused = await chat(llm, { messages: MESSAGES, max_tokens: 1 });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('x-ratelimit-remaining-tokens')).toBe('0');
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(refused.headers.get('x-ratelimit-reset-tokens')).toMatch(/^\d{1,3}ms$/);
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect((await chat(llm, { messages: MESSAGES, max_tokens: 1 })).status).toBe(200);
    expect(llm.calls.map((call) => call.tokens)).toEqual([55, 0, 11]);
  });

  it('sends Anthropic-style headers, the reset as an RFC 3339 time in whole seconds', async () => {
    const llm = await fakeLlm({ tokensPerWindow: 1000, headers: 'anthropic' });
    const response = await chat(llm, { messages: MESSAGES });
    expect(response.headers.get('anthropic-ratelimit-tokens-remaining')).toBe('1000');
    const reset = response.headers.get('anthropic-ratelimit-tokens-reset')!;
    expect(reset).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(Date.parse(reset) - Date.now()).toBeGreaterThan(59_000);
    expect(response.headers.get('x-ratelimit-remaining-tokens')).toBeNull();
  });

  it('refuses a body that is not a chat request with a 400, and other paths with a 404', async () => {
    const llm = await fakeLlm({ tokensPerWindow: 1000 });
    expect((await chat(llm, { prompt: 'hi' })).status).toBe(400);
    expect((await chat(llm, { messages: MESSAGES, max_tokens: -3 })).status).toBe(400);
    expect((await fetch(`${llm.url}/v1/models`)).status).toBe(404);
    expect(llm.calls).toEqual([]);
  });
});
