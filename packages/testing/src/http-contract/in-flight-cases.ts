import { once } from 'node:events';
import { createServer, get, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { BackendContext } from './backends.js';
import { EVENTUALLY } from './eventually.js';
import {
  type ContractApp,
  type ContractFramework,
  type ContractHandler,
  type ContractLimiter,
  type ContractOptions,
  contractRateLimit,
  type HttpAdapter,
} from './types.js';

// Concurrency leases, refunds and shaping end to end, through the real core limiter on both stores.

/** Every request of these tests is one client: `key:client`. */
const key = () => 'client';
const IDENTITY = 'key:client';

/** A handler that stays in flight until `open()`; `entered` resolves each time a request reaches it. */
function gate() {
  let open = () => {};
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  let entered = 0;
  const handler: ContractHandler = async () => {
    entered++;
    await opened;
    return { body: 'done' };
  };
  return {
    handler,
    entered: () => entered,
    open: () => open(),
  };
}

/** Sends GET `path` from a raw client and destroys its socket once `ready()` holds. */
async function hangUp(server: Server, path: string, ready: () => boolean): Promise<void> {
  const client = get({ port: (server.address() as AddressInfo).port, host: '127.0.0.1', path });
  client.on('error', () => {});
  await vi.waitFor(() => expect(ready()).toBe(true), EVENTUALLY);
  client.destroy();
}

/** Resolves once a request of the rule would be admitted again (its lease was released). */
const slotFree = (limit: { limiter: ContractLimiter }) =>
  vi.waitFor(async () => expect((await limit.limiter.peek(IDENTITY)).allowed).toBe(true), EVENTUALLY);

/** Resolves once nothing of the 2-unit window is spent (a refund landed): both units are left. */
const nothingSpent = (limit: { limiter: ContractLimiter }) =>
  vi.waitFor(async () => expect((await limit.limiter.peek(IDENTITY)).remaining).toBe(2), EVENTUALLY);

export function inFlightCases<Limit extends { limiter: ContractLimiter }, Store>(
  adapter: HttpAdapter<Limit, Store>,
  framework: ContractFramework<Limit>,
  backend: BackendContext,
): void {
  const rateLimit = contractRateLimit(adapter);
  const store = backend.options;
  let server: Server;
  const listen = async (app: ContractApp<Limit>) => {
    server = createServer(framework.serve(app)).listen(0, '127.0.0.1');
    await once(server, 'listening');
    return server;
  };
  afterEach(() => {
    server?.close();
  });

  const advance = (ms: number) => backend.clock.advance(ms);
  const cases: InFlightContext<Limit> = { rateLimit, store, framework, listen, advance };
  describe('a concurrency rule', () => concurrencyCases(cases));
  describe('refunds', () => {
    refundCases(cases);
    lateRefundCases(cases);
  });
  describe('shaping with a leaky bucket', () => shapingCases(cases));
}

/** What the cases of each topic share. */
interface InFlightContext<Limit> {
  rateLimit: (options: ContractOptions) => Limit;
  /** The backend's options for the current test. */
  store: () => ContractOptions;
  framework: ContractFramework<Limit>;
  /** Serves `app` on a loopback port, closed after the test. */
  listen: (app: ContractApp<Limit>) => Promise<Server>;
  /** Moves the backend's virtual clock. */
  advance: (ms: number) => void;
}

function concurrencyCases<Limit extends { limiter: ContractLimiter }>({ rateLimit, store, listen }: InFlightContext<Limit>): void {
  const concurrency = () => rateLimit({ algorithm: 'concurrency', limit: 1, leaseTtl: '1m', key, ...store() });

  it('answers 429 while a request holds the slot, and lets the next one in once it finished', async () => {
    const slow = gate();
    const limit = concurrency();
    const server = await listen({ routes: [{ path: '/slow', limits: [limit], handler: slow.handler }] });
    const first = request(server)
      .get('/slow')
      .then((res) => res);
    await vi.waitFor(() => expect(slow.entered()).toBe(1), EVENTUALLY);
    const second = await request(server).get('/slow').expect(429);
    // A slot frees when a request ends, which nothing foresees: 1 second, never the lease TTL (60).
    expect(second.headers['retry-after']).toBe('1');
    slow.open();
    expect((await first).status).toBe(200);
    await slotFree(limit);
    await request(server).get('/slow').expect(200);
    expect(slow.entered()).toBe(2);
  });

  it('frees the slot of a request whose client hung up mid-handler', async () => {
    const slow = gate();
    const limit = concurrency();
    const server = await listen({ routes: [{ path: '/slow', limits: [limit], handler: slow.handler }] });
    await hangUp(server, '/slow', () => slow.entered() === 1);
    // The handler is still running, but the connection is gone: the slot comes back.
    await slotFree(limit);
    slow.open();
    await request(server).get('/slow').expect(200);
  });

  it('releases the lease of a concurrency limit inside a multi-limit rule, and lists both policies', async () => {
    const slow = gate();
    slow.open();
    const limits = [
      { name: 'rate', perMinute: 10 },
      { name: 'in-flight', algorithm: 'concurrency', limit: 1, leaseTtl: '1m' },
    ] as const;
    const limit = rateLimit({ limits, key, ...store() });
    const server = await listen({ routes: [{ path: '/slow', limits: [limit], handler: slow.handler }] });
    for (let i = 1; i <= 3; i++) {
      const res = await request(server).get('/slow').expect(200);
      expect(res.headers['ratelimit-policy']).toBe('"rate";q=10;w=60, "in-flight";q=1;qu="concurrent-requests"');
      await slotFree(limit);
    }
    // Three requests went through the rate limit; the in-flight slot came back after each.
    expect((await limit.limiter.peek(IDENTITY)).limits.map((part) => part.remaining)).toEqual([7, 1]);
  });
}

function refundCases<Limit extends { limiter: ContractLimiter }>({ rateLimit, store, framework }: InFlightContext<Limit>): void {
  const fixedWindow = { algorithm: 'fixed-window', limit: 2, window: '1m', key } as const;
  const failIfAsked: ContractHandler = (req) => ({ status: req.query.fail === undefined ? 200 : 401, body: 'done' });

  it('skipFailedRequests: failed responses give their unit back, successful ones count', async () => {
    const limit = rateLimit({ ...fixedWindow, skipFailedRequests: true, ...store() });
    const app = framework.serve({ routes: [{ path: '/', limits: [limit], handler: failIfAsked }] });
    for (let i = 0; i < 3; i++) {
      await request(app).get('/?fail').expect(401);
      await nothingSpent(limit);
    }
    await request(app).get('/').expect(200);
    await request(app).get('/').expect(200);
    await request(app).get('/').expect(429);
    await request(app).get('/?fail').expect(429);
  });

  it('skipSuccessfulRequests: successful responses give their unit back, failed ones count', async () => {
    const limit = rateLimit({ ...fixedWindow, skipSuccessfulRequests: true, ...store() });
    const app = framework.serve({ routes: [{ path: '/', limits: [limit], handler: failIfAsked }] });
    for (let i = 0; i < 3; i++) {
      await request(app).get('/').expect(200);
      await nothingSpent(limit);
    }
    await request(app).get('/?fail').expect(401);
    await request(app).get('/?fail').expect(401);
    await request(app).get('/?fail').expect(429);
    await request(app).get('/').expect(429);
  });
  it('requestWasSuccessful (sync or async) decides which responses failed, as express-rate-limit does', async () => {
    const allFailed = rateLimit({ ...fixedWindow, skipFailedRequests: true, requestWasSuccessful: async () => false, ...store() });
    const app = framework.serve({ routes: [{ path: '/', limits: [allFailed], handler: failIfAsked }] });
    for (let i = 0; i < 3; i++) {
      await request(app).get('/').expect(200);
      await nothingSpent(allFailed);
    }
    // Called a success, a 401 is not refunded by skipFailedRequests but is by skipSuccessfulRequests.
    const allSucceeded = rateLimit({ ...fixedWindow, skipSuccessfulRequests: true, requestWasSuccessful: () => true, ...store() });
    const other = framework.serve({ routes: [{ path: '/', limits: [allSucceeded], handler: failIfAsked }] });
    for (let i = 0; i < 3; i++) {
      await request(other).get('/?fail').expect(401);
      await nothingSpent(allSucceeded);
    }
  });
}

/** express-rate-limit's over-admission case: a refund must not come out of a window it was not charged in. */
function lateRefundCases<Limit extends { limiter: ContractLimiter }>({ rateLimit, store, listen, advance }: InFlightContext<Limit>): void {
  it('a response that ends after its window gives nothing back to the next window', async () => {
    // express-rate-limit's options: 2 per 300 ms, successful responses not counted.
    const limit = rateLimit({ windowMs: 300, limit: 2, skipSuccessfulRequests: true, key, ...store() });
    // Charged at the same instant in a window of its own, which refunds: once its refund shows, the
    // refund of `limit` issued just before it (same response, same store connection) has landed.
    const barrier = rateLimit({
      algorithm: 'fixed-window',
      window: '1m',
      limit: 10,
      skipSuccessfulRequests: true,
      key,
      ...store(),
      prefix: `barrier-${Math.random()}`,
    });
    const slow = gate();
    const handler: ContractHandler = (req) => (req.query.fail === undefined ? slow.handler(req) : { status: 401, body: 'done' });
    // `limit` at app level, seen only through responses (a Fastify route takes one limiter, and an
    // app-level one is built anew from its options); both refunds leave at the same response end.
    const server = await listen({ use: [limit], routes: [{ path: '/', limits: [barrier], handler }] });
    const first = request(server)
      .get('/')
      .then((res) => res);
    await vi.waitFor(() => expect(slow.entered()).toBe(1), EVENTUALLY);
    advance(400);
    // The next window: its 2 units go to two failed responses, which count.
    await request(server).get('/?fail').expect(401);
    await request(server).get('/?fail').expect(401);
    slow.open();
    expect((await first).status).toBe(200);
    // The barrier keeps the 2 failures: 8 of its 10 are left.
    await vi.waitFor(async () => expect((await barrier.limiter.peek(IDENTITY)).remaining).toBe(8), EVENTUALLY);
    await request(server).get('/?fail').expect(429);
  });
}

function shapingCases<Limit extends { limiter: ContractLimiter }>({ rateLimit, store, listen }: InFlightContext<Limit>): void {
  // 50 per second: one departure every 20 ms.
  const shaping = { algorithm: 'leaky-bucket', mode: 'shaping', rate: 50, key } as const;

  it('holds simultaneous requests and answers them in slot order, with Retry-After on the delayed ones', async () => {
    const handled: number[] = [];
    const limit = rateLimit({ ...shaping, maxDelay: '60ms', ...store() });
    const record: ContractHandler = (req) => {
      handled.push(req.rateLimit!.delayMs);
      return { body: { delayMs: req.rateLimit!.delayMs } };
    };
    const server = await listen({ routes: [{ path: '/', limits: [limit], handler: record }] });
    const sentAt = performance.now();
    const responses = await Promise.all(
      Array.from({ length: 5 }, () =>
        request(server)
          .get('/')
          .then((res) => ({ res, tookMs: performance.now() - sentAt })),
      ),
    );
    const passed = responses.filter(({ res }) => res.status === 200);
    // The clock stands still, so the slots are exact: 0, 20, 40, 60 ms; the fifth would wait past maxDelay.
    expect(passed.map(({ res }) => res.body.delayMs).sort((a, b) => a - b)).toEqual([0, 20, 40, 60]);
    expect(handled).toEqual([0, 20, 40, 60]);
    for (const { res, tookMs } of passed) {
      expect(tookMs).toBeGreaterThanOrEqual(res.body.delayMs);
      expect(res.headers['retry-after']).toBe(res.body.delayMs > 0 ? '1' : undefined);
    }
    const denied = responses.filter(({ res }) => res.status === 429);
    expect(denied).toHaveLength(1);
    expect(denied[0]!.res.headers['retry-after']).toBe('1');
  });

  it('never runs the handler of a held request whose client hung up, and refunds its slot when asked', async () => {
    const handler = vi.fn<ContractHandler>(() => ({ body: 'done' }));
    let held = 0;
    const limit = rateLimit({
      ...shaping,
      rate: 2, // one departure every 500 ms
      maxDelay: '1s',
      skipFailedRequests: true,
      events: { delayed: () => held++ },
      ...store(),
    });
    const server = await listen({ routes: [{ path: '/', limits: [limit], handler }] });
    await limit.limiter.consume(IDENTITY); // takes the slot leaving now
    await hangUp(server, '/', () => held === 1); // this one was given the slot 500 ms ahead
    // The aborted request's slot is given back: the next one gets the same 500 ms, not 1000.
    await vi.waitFor(async () => expect((await limit.limiter.peek(IDENTITY)).delayMs).toBe(500), EVENTUALLY);
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(handler).not.toHaveBeenCalled();
  });
}
