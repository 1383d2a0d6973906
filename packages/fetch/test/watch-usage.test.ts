import { type FakeLlm, startFakeLlm } from '@tollgate/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { watchUsage } from '../src/index.js';
import { startServer, type TestServer } from './servers.js';

let llm: FakeLlm;
beforeAll(async () => {
  llm = await startFakeLlm({ tokensPerWindow: 1_000_000, completionTokens: () => 7 });
});
afterAll(() => llm?.close());
const servers: TestServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

// 40 characters: 10 prompt tokens.
const chat = (stream: boolean) =>
  fetch(`${llm.url}/v1/chat/completions`, {
    method: 'POST',
    body: JSON.stringify({ messages: [{ role: 'user', content: 'x'.repeat(40) }], max_tokens: 50, stream }),
  });

/** A server answering every request with `chunks`, written apart so lines are split across reads. */
async function serving(contentType: string, chunks: string[]): Promise<string> {
  const server = await startServer(async (_req, res) => {
    res.writeHead(200, { 'content-type': contentType });
    for (const chunk of chunks) {
      res.write(chunk);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    res.end();
  });
  servers.push(server);
  return server.url;
}

describe('watchUsage', () => {
  it('reads the usage of a JSON answer, the body unchanged', async () => {
    const { response, usage } = watchUsage(await chat(false));
    const body = (await response.json()) as { usage: object };
    expect(body.usage).toEqual({ prompt_tokens: 10, completion_tokens: 7, total_tokens: 17 });
    expect(await usage).toEqual({ input: 10, output: 7, total: 17 });
    expect(response.status).toBe(200);
    expect(response.url).toBe(`${llm.url}/v1/chat/completions`);
  });

  it('reads the final usage event of an SSE stream once the stream is read to its end', async () => {
    const { response, usage } = watchUsage(await chat(true));
    let ended = false;
    void usage.then(() => (ended = true));
    const text = await response.text();
    expect(text.match(/"content"/g)).toHaveLength(7);
    expect(text.endsWith('data: [DONE]\n\n')).toBe(true);
    expect(ended).toBe(true);
    expect(await usage).toEqual({ input: 10, output: 7, total: 17 });
  });

  it("reads Anthropic's stream: input tokens from message_start, output from the last message_delta, lines split across reads", async () => {
    const url = await serving('text/event-stream; charset=utf-8', [
      'event: message_start\ndata: {"type":"message_start","message":{"usage":{"input_tokens":25,"output_tokens":1}}}\n\n',
      'event: content_block_delta\ndata: {"type":"content_block_delta","delta":{"text":"Hi"}}\n\nevent: message_delta\ndata: {"type":"mess',
      'age_delta","usage":{"output_tokens":15}}\r\n\r\nevent: message_stop\ndata: {"type":"message_stop"}',
    ]);
    const { response, usage } = watchUsage(await fetch(url));
    await response.arrayBuffer();
    expect(await usage).toEqual({ input: 25, output: 15, total: 40 });
  });

  it('a cancelled body, an answer that is neither JSON nor SSE, or one without usage: undefined', async () => {
    const cancelled = watchUsage(await chat(true));
    const reader = cancelled.response.body!.getReader();
    await reader.read();
    await reader.cancel();
    expect(await cancelled.usage).toBeUndefined();
    const text = watchUsage(await fetch(await serving('text/plain', ['{"usage":{"total_tokens":5}}'])));
    expect(await text.response.text()).toBe('{"usage":{"total_tokens":5}}');
    expect(await text.usage).toBeUndefined();
    const noUsage = watchUsage(await fetch(await serving('application/json', ['{"error":', '"busy"}'])));
    expect(await noUsage.response.json()).toEqual({ error: 'busy' });
    expect(await noUsage.usage).toBeUndefined();
    const hostile = watchUsage(
      await fetch(await serving('text/event-stream', ['data: {"usage":{"total_tokens":-4,"prompt_tokens":"9"}}\n\n'])),
    );
    await hostile.response.text();
    expect(await hostile.usage).toBeUndefined();
  });
});
