import type { Store } from '@tollgate/core';
import { rateLimit } from '@tollgate/express';
import { watchUsage } from '@tollgate/fetch';
import express, { type Express, type Request, type Response } from 'express';
import { type ChatBody, chatBody, tokenEstimate } from './chat.js';
import { upstreamFetch } from './upstream.js';

/** What each user may spend. */
export interface UserBudgets {
  requestsPerMinute: number;
  tokensPerMinute: number;
  /** Calls of one user in flight at once. */
  concurrency: number;
}

/**
 * `hold`: a call holds its estimate (prompt + max_tokens) before it goes out and settles the tokens
 * the API reports. `charge-after`: what LLM gateways commonly do, a call is let in while the user has
 * any token left (it holds 1) and charged what it used afterwards; kept to measure the difference.
 */
export type Accounting = 'hold' | 'charge-after';

export interface ProxyOptions {
  store: Store;
  /** The LLM API's base URL (`https://api.openai.com`, or the fake one of the tests). */
  upstream: string;
  budgets: UserBudgets;
  /** Calls in flight to the API at once, all users and processes together. Default 4. */
  upstreamInFlight?: number;
  /** The most tokens one call may use (its prompt and `max_tokens`); a larger call is refused with a 400. Default 2560. */
  maxCallTokens?: number;
  accounting?: Accounting;
  /** Start of the store keys. Default `llm-proxy`. */
  keyPrefix?: string;
}

const userOf = (req: Request) => req.get('x-user') || undefined;

/** An Express app proxying `POST /v1/chat/completions` (JSON or a stream) for users named by `X-User`. */
export function createProxy(options: ProxyOptions): Express {
  const { store, budgets, upstreamInFlight = 4, maxCallTokens = 2560, accounting = 'hold', keyPrefix = 'llm-proxy' } = options;
  const send = upstreamFetch(store, keyPrefix, upstreamInFlight, maxCallTokens);
  const perUser = rateLimit({
    limits: [
      { name: 'requests', algorithm: 'fixed-window', limit: budgets.requestsPerMinute, window: '1m' },
      { name: 'tokens', algorithm: 'fixed-window', limit: budgets.tokensPerMinute, window: '1m', unit: 'tokens' },
      { name: 'in-flight', algorithm: 'concurrency', limit: budgets.concurrency, leaseTtl: '5m' },
    ],
    key: userOf,
    cost: (req: Request) => ({ tokens: accounting === 'hold' ? tokenEstimate(req.body as ChatBody) : 1 }),
    // A call answered with an error (the API's, or a 429 of ours) gives its tokens back.
    skipFailedRequests: true,
    store,
    prefix: `${keyPrefix}:user`,
    responseType: 'json',
  });
  const upstreamSlots = rateLimit({
    algorithm: 'concurrency',
    limit: upstreamInFlight,
    leaseTtl: '5m',
    key: () => 'upstream',
    store,
    prefix: `${keyPrefix}:upstream-slots`,
    headers: false,
    responseType: 'json',
  });

  const app = express();
  app.use(express.json({ limit: '1mb' }));
  app.post('/v1/chat/completions', checkBody(maxCallTokens), upstreamSlots, perUser, async (req, res) => {
    const controller = new AbortController();
    res.once('close', () => controller.abort());
    const answer = await send(`${options.upstream}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(req.body),
      signal: controller.signal,
    });
    await relay(answer, req, res);
  });
  app.use((error: Error & { status?: number; code?: string }, _req: Request, res: Response, _next: express.NextFunction) => {
    if (res.headersSent) return void res.destroy();
    // A body express.json could not read is the client's; a wait past maxWait, the API's budget.
    if (error.status !== undefined && error.status < 500) return void res.status(error.status).json({ error: error.message });
    if (error.code === 'ERR_TOLLGATE_WAIT_TIMEOUT') return void res.status(503).json({ error: 'the LLM API is out of budget for now' });
    res.status(502).json({ error: 'the LLM API could not be reached' });
  });
  return app;
}

function checkBody(maxCallTokens: number) {
  return (req: Request, res: Response, next: express.NextFunction): void => {
    const user = userOf(req);
    if (user === undefined) return void res.status(401).json({ error: 'X-User names the caller' });
    const body = chatBody(req.body, user, maxCallTokens);
    if (typeof body === 'string') return void res.status(400).json({ error: body });
    req.body = body;
    next();
  };
}

/** Sends the API's answer on as it comes, and settles the user's hold with the tokens it reports before the response ends. */
async function relay(answer: globalThis.Response, req: Request, res: Response): Promise<void> {
  const { response, usage } = watchUsage(answer);
  res.status(response.status);
  for (const name of ['content-type', 'retry-after']) {
    const value = response.headers.get(name);
    if (value !== null) res.setHeader(name, value);
  }
  if (response.body !== null) {
    for await (const chunk of response.body) {
      if (!res.write(chunk)) await new Promise((resolve) => res.once('drain', resolve));
    }
  }
  const used = await usage;
  // No usage (an error answer): the call cost nothing.
  if (used === undefined) await req.rateLimit.cancel?.();
  else await req.rateLimit.settle?.({ tokens: used.total });
  res.end();
}
