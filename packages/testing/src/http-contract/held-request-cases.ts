import { once } from 'node:events';
import { createServer, get, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { afterEach, expect, it, vi } from 'vitest';
import type { BackendContext } from './backends.js';
import type { ContractRequestView } from './contract-request.js';
import { EVENTUALLY } from './eventually.js';
import { type ContractFramework, type ContractHandler, type ContractLimiter, contractRateLimit, type HttpAdapter } from './types.js';

// Requests that hold an estimate (the `cost` option) and settle what they really cost.

const key = () => 'client';
const IDENTITY = 'key:client';
/** 100 tokens and 10 requests a minute; a request holds the tokens its `x-estimate` header names. */
const TOKENS_AND_REQUESTS = {
  limits: [
    { name: 'tokens', algorithm: 'fixed-window', limit: 100, window: '1m', unit: 'tokens' },
    { name: 'requests', algorithm: 'fixed-window', limit: 10, window: '1m' },
  ],
  cost: (req: ContractRequestView) => ({ tokens: Number(req.get('x-estimate')) }),
  key,
} as const;

/** A handler settling `?used=N` tokens, or leaving the hold open without it. */
const settleUsed: ContractHandler = async (req) => {
  if (req.query.used !== undefined) await req.rateLimit!.settle!({ tokens: Number(req.query.used) });
  return { body: 'done' };
};

export function heldRequestCases<Limit extends { limiter: ContractLimiter }, Store>(
  adapter: HttpAdapter<Limit, Store>,
  framework: ContractFramework<Limit>,
  backend: BackendContext,
): void {
  const rateLimit = contractRateLimit(adapter);
  const held = () => rateLimit({ ...TOKENS_AND_REQUESTS, ...backend.options() });
  /** Tokens and requests left now, once every settle has landed, as a peek reports them. */
  const left = async (limit: Limit) => (await limit.limiter.peek(IDENTITY)).limits.map((part) => part.remaining);
  let server: Server | undefined;
  afterEach(() => {
    server?.close();
  });

  it('charges what the handler settles instead of the estimate: the unused part comes back', async () => {
    const limit = held();
    const app = framework.serve({ routes: [{ path: '/', limits: [limit], handler: settleUsed }] });
    await request(app).get('/?used=30').set('x-estimate', '80').expect(200);
    await vi.waitFor(async () => expect(await left(limit)).toEqual([70, 9]), EVENTUALLY);
    // 70 left: an estimate of 80 is refused before the handler, 70 is taken.
    await request(app).get('/?used=1').set('x-estimate', '80').expect(429);
    await request(app).get('/?used=70').set('x-estimate', '70').expect(200);
    await vi.waitFor(async () => expect(await left(limit)).toEqual([0, 8]), EVENTUALLY);
  });

  it('charges an excess beyond the limit, never refusing it: the next request pays', async () => {
    const limit = held();
    const app = framework.serve({ routes: [{ path: '/', limits: [limit], handler: settleUsed }] });
    await request(app).get('/?used=130').set('x-estimate', '50').expect(200);
    await vi.waitFor(async () => expect((await left(limit))[0]).toBe(0), EVENTUALLY);
    await request(app).get('/?used=1').set('x-estimate', '1').expect(429);
  });

  it('settles a hold its handler left open at the estimate when the response ends', async () => {
    const limit = held();
    const app = framework.serve({ routes: [{ path: '/', limits: [limit], handler: settleUsed }] });
    await request(app).get('/').set('x-estimate', '40').expect(200);
    await vi.waitFor(async () => expect(await left(limit)).toEqual([60, 9]), EVENTUALLY);
  });

  it('gives the whole estimate back when the client hangs up before the response', async () => {
    let entered = 0;
    let open = () => {};
    const opened = new Promise<void>((resolve) => (open = resolve));
    const slow: ContractHandler = async () => {
      entered++;
      await opened;
      return { body: 'late' };
    };
    const limit = held();
    server = createServer(framework.serve({ routes: [{ path: '/', limits: [limit], handler: slow }] })).listen(0, '127.0.0.1');
    await once(server, 'listening');
    const client = get({ port: (server.address() as AddressInfo).port, host: '127.0.0.1', path: '/', headers: { 'x-estimate': '90' } });
    client.on('error', () => {});
    try {
      await vi.waitFor(() => expect(entered).toBe(1), EVENTUALLY);
      expect(await left(limit)).toEqual([10, 9]);
      client.destroy();
      await vi.waitFor(async () => expect(await left(limit)).toEqual([100, 10]), EVENTUALLY);
    } finally {
      open();
    }
  });

  it('the first settle counts: a settle after it, or the response end, changes nothing', async () => {
    const twice: ContractHandler = async (req) => {
      await req.rateLimit!.settle!({ tokens: 10 });
      await req.rateLimit!.settle!({ tokens: 90 });
      return { body: 'done' };
    };
    const limit = held();
    const app = framework.serve({ routes: [{ path: '/', limits: [limit], handler: twice }] });
    await request(app).get('/').set('x-estimate', '50').expect(200);
    await vi.waitFor(async () => expect(await left(limit)).toEqual([90, 9]), EVENTUALLY);
  });
}
