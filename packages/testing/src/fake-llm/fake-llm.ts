import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type BudgetHeaderStyle, budgetHeaders } from './budget-headers.js';
import { BudgetWindow } from './budget-window.js';
import { type ChatRequest, DEFAULT_MAX_TOKENS, parseChatRequest, promptTokens, sseEvent, usageOf } from './chat.js';

export interface FakeLlmOptions {
  /** Tokens (prompt and completion) the upstream serves per window; past them it answers 429. */
  tokensPerWindow: number;
  /** Calls it serves per window. Default 10 000. */
  requestsPerWindow?: number;
  /** Length of the upstream's budget window. Default 60 000 ms (a minute). */
  windowMs?: number;
  /** The rate-limit headers it sends: OpenAI's (`x-ratelimit-*-tokens`, default) or Anthropic's. */
  headers?: BudgetHeaderStyle;
  /** How many tokens a call's answer has. Default its `max_tokens` (16 when it names none). */
  completionTokens?: (request: ChatRequest) => number;
  /** Pause between two streamed tokens. Default 0. */
  tokenIntervalMs?: number;
}

/** One call as the upstream answered it. */
export interface FakeLlmCall {
  at: number;
  status: number;
  user: string | undefined;
  /** Tokens charged to the budget (prompt and completion); 0 for a refused call. */
  tokens: number;
}

export interface FakeLlm {
  url: string;
  calls: FakeLlmCall[];
  close(): Promise<void>;
}

/**
 * A small LLM API for tests, on a free loopback port: `POST /v1/chat/completions` answers JSON, or
 * with `stream: true` an SSE stream of tokens ending with a usage event and `data: [DONE]`. It keeps
 * its own token and request budgets and sends them on every answer as OpenAI or Anthropic do (as
 * they stood when the call came in: its own tokens are charged when it ends); a call arriving when
 * either is spent gets a 429 with `Retry-After`.
 */
export async function startFakeLlm(options: FakeLlmOptions): Promise<FakeLlm> {
  const windowMs = options.windowMs ?? 60_000;
  const budgets = {
    requests: new BudgetWindow(options.requestsPerWindow ?? 10_000, windowMs),
    tokens: new BudgetWindow(options.tokensPerWindow, windowMs),
  };
  const calls: FakeLlmCall[] = [];
  const answer = async (req: IncomingMessage, res: ServerResponse) => {
    if (req.method !== 'POST' || req.url !== '/v1/chat/completions') return void res.writeHead(404).end();
    const request = parseChatRequest(await readBody(req));
    if (request === null)
      return void res.writeHead(400, { 'content-type': 'application/json' }).end('{"error":{"type":"invalid_request"}}');
    const headers = () => budgetHeaders(options.headers ?? 'openai', budgets, Date.now());
    const call: FakeLlmCall = { at: Date.now(), status: 200, user: request.user, tokens: 0 };
    calls.push(call);
    if (budgets.tokens.remaining() === 0 || budgets.requests.remaining() === 0) {
      call.status = 429;
      const retryAfter = String(Math.ceil(Math.max(budgets.tokens.resetMs(), budgets.requests.resetMs()) / 1000));
      res.writeHead(429, { ...headers(), 'retry-after': retryAfter, 'content-type': 'application/json' });
      return void res.end('{"error":{"type":"rate_limit_exceeded"}}');
    }
    budgets.requests.charge(1);
    const prompt = promptTokens(request);
    const completion = options.completionTokens?.(request) ?? request.max_tokens ?? DEFAULT_MAX_TOKENS;
    const charge = (completed: number) => {
      call.tokens = prompt + completed;
      budgets.tokens.charge(call.tokens);
    };
    if (!request.stream) {
      res.writeHead(200, { ...headers(), 'content-type': 'application/json' });
      charge(completion);
      return void res.end(JSON.stringify(completionBody(request, completion, usageOf(prompt, completion))));
    }
    res.writeHead(200, { ...headers(), 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const sent = await streamTokens(res, completion, options.tokenIntervalMs ?? 0);
    charge(sent);
    if (sent < completion) return;
    res.write(sseEvent({ object: 'chat.completion.chunk', choices: [], usage: usageOf(prompt, completion) }));
    res.end(sseEvent('[DONE]'));
  };
  const server = createServer((req, res) => {
    answer(req, res).catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function completionBody(request: ChatRequest, completion: number, usage: ReturnType<typeof usageOf>) {
  const content = Array.from({ length: completion }, (_, i) => `t${i}`).join(' ');
  return {
    object: 'chat.completion',
    model: 'fake',
    choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: request.max_tokens === completion ? 'length' : 'stop' }],
    usage,
  };
}

/** Writes `count` token chunks, `intervalMs` apart; returns how many went out before the client left. */
async function streamTokens(res: ServerResponse, count: number, intervalMs: number): Promise<number> {
  for (let i = 0; i < count; i++) {
    if (res.destroyed) return i;
    res.write(sseEvent({ object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content: `t${i} ` } }] }));
    if (intervalMs > 0) await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
  return count;
}

async function readBody(req: IncomingMessage): Promise<string> {
  let body = '';
  for await (const chunk of req) body += chunk;
  return body;
}
