import { once } from 'node:events';
import { createServer, get, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ADAPTIVE_TYPOS, expectTypoRefused, failureOf } from '../option-typos.js';
import { EVENTUALLY } from './eventually.js';
import type { ContractHandler, ContractOptions, ContractRoute } from './types.js';

/** The parts of a core `AdaptiveLimiter` the contract reads. */
export interface ContractAdaptiveLimiter {
  snapshot(): { limit: number; inflight: number };
  on(event: 'sample', listener: (event: { partition: string | undefined }) => void): () => void;
}

/** One framework version under test, with the adapter's `adaptiveConcurrency` applied app-wide. */
export interface AdaptiveFramework {
  name: string;
  /**
   * Serves `routes` behind `adaptiveConcurrency(options)`, its callbacks (`partition`, `skip`)
   * handed the contract's request view (`req.path`, `req.get()`); answers the listener and the
   * middleware's limiter.
   */
  serve(options: ContractOptions, routes: ContractRoute<never>[]): { listener: RequestListener; limiter: ContractAdaptiveLimiter };
}

export interface AdaptiveAdapter {
  /** The adapter's `adaptiveConcurrency`, as it is: the contract calls it with bad options. */
  adaptiveConcurrency(options: never): unknown;
  frameworks: AdaptiveFramework[];
}

/** A route whose requests stay in flight until `release()`; `reached(n)` resolves once n of them arrived. */
function heldRoute() {
  let release = () => {};
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  let arrivals = 0;
  const handler: ContractHandler = async () => {
    arrivals += 1;
    await released;
    return { body: 'done' };
  };
  const reached = (count = 1) => vi.waitFor(() => expect(arrivals).toBe(count), EVENTUALLY);
  return { handler, reached, release: () => release() };
}

const OTHER_ROUTES: ContractRoute<never>[] = [
  { path: '/ok', handler: () => ({ body: 'ok' }) },
  { path: '/fail', handler: () => ({ status: 500, body: 'failed' }) },
  { path: '/health', handler: () => ({ body: 'healthy' }) },
];

/** Sends GET `path` without waiting for its answer: the response, once it comes. */
const pending = (server: Server, path: string) =>
  request(server)
    .get(path)
    .then((response) => response);

const aimdFrom10 = { algorithm: 'aimd', initialLimit: 10, minLimit: 1 } as const;

/**
 * The adaptive concurrency middleware as every adapter shares it, written once: refusals (status,
 * `Retry-After`, body), the slot given back however the request ended, 5xx as a loss signal, the
 * queue, `skip`, partitions chosen per request, errors of `partition`, options checked.
 */
export function describeAdaptiveAdapter(adapter: AdaptiveAdapter): void {
  describe.each(adapter.frameworks.map((framework) => [framework.name, framework] as const))(
    'adaptiveConcurrency on %s',
    (_name, framework) => adaptiveCases(framework),
  );
  it('adaptiveConcurrency checks its options, naming the field', () => {
    const build = (options: ContractOptions) => adapter.adaptiveConcurrency(options as never);
    expect(() => build({ statusCode: 500 })).toThrow(expect.objectContaining({ field: 'statusCode' }));
  });
  it.each(ADAPTIVE_TYPOS)('adaptiveConcurrency refuses a misspelt option: %s', async (_what, options, field, closest) => {
    expectTypoRefused(await failureOf(() => adapter.adaptiveConcurrency(options as never)), field, closest);
  });
}

function adaptiveCases(framework: AdaptiveFramework): void {
  let server: Server | undefined;
  afterEach(() => {
    server?.close();
    server?.closeAllConnections();
    server = undefined;
  });

  async function appWith(options: ContractOptions) {
    const held = heldRoute();
    const { listener, limiter } = framework.serve(options, [{ path: '/held', handler: held.handler }, ...OTHER_ROUTES]);
    server = createServer(listener).listen(0, '127.0.0.1');
    await once(server, 'listening');
    return { server, held, limiter };
  }
  describe('refusals', () => refusalCases(appWith));
  describe('slots given back', () => slotCases(appWith));
  describe('requests let through', () => admissionCases(appWith));
}

/** Serves the contract's routes behind `adaptiveConcurrency(options)` on a loopback port, closed after the test. */
type AppWith = (
  options: ContractOptions,
) => Promise<{ server: Server; held: ReturnType<typeof heldRoute>; limiter: ContractAdaptiveLimiter }>;

function refusalCases(appWith: AppWith): void {
  it('answers 503 with Retry-After while the limit is full, and lets requests in once a slot is back', async () => {
    const { server, held, limiter } = await appWith({ limit: 1 });
    const first = pending(server, '/held');
    await held.reached();
    const refused = await request(server).get('/ok').expect(503);
    expect(refused.headers['retry-after']).toBe('1');
    expect(refused.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(refused.text).toBe('Service overloaded: retry in 1 second.');
    held.release();
    expect((await first).text).toBe('done');
    await request(server).get('/ok').expect(200, 'ok');
    await vi.waitFor(() => expect(limiter.snapshot().inflight).toBe(0), EVENTUALLY);
  });

  it('answers 429 when told to', async () => {
    const { server, held } = await appWith({ limit: 1, statusCode: 429 });
    const first = pending(server, '/held');
    await held.reached();
    const refused = await request(server).get('/ok').expect(429);
    expect(refused.text).toBe('Too many requests in flight: retry in 1 second.');
    held.release();
    await first;
  });
}

function slotCases(appWith: AppWith): void {
  it('backs the limit off on a 5xx, a success leaving it', async () => {
    const { server, limiter } = await appWith({ limit: aimdFrom10 });
    await request(server).get('/fail').expect(500);
    await vi.waitFor(() => expect(limiter.snapshot()).toMatchObject({ limit: 9, inflight: 0 }), EVENTUALLY);
    await request(server).get('/ok').expect(200);
    await vi.waitFor(() => expect(limiter.snapshot()).toMatchObject({ limit: 9, inflight: 0 }), EVENTUALLY);
  });

  it('gives the slot back when the client goes away, leaving the limit as it was', async () => {
    const { server, held, limiter } = await appWith({ limit: { ...aimdFrom10, initialLimit: 2 } });
    const client = get({ port: (server.address() as AddressInfo).port, host: '127.0.0.1', path: '/held' });
    client.on('error', () => {});
    await held.reached();
    expect(limiter.snapshot().inflight).toBe(1);
    client.destroy();
    await vi.waitFor(() => expect(limiter.snapshot()).toMatchObject({ limit: 2, inflight: 0 }), EVENTUALLY);
    held.release();
    await request(server).get('/ok').expect(200, 'ok');
  });

  it('answers 500 when partition throws, taking no slot', async () => {
    // Frameworks log an unhandled error (Koa, Hono) before answering 500.
    const logged = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      const { server, limiter } = await appWith({
        limit: 1,
        partitions: { critical: 1 },
        partition: () => {
          throw new Error('no partition');
        },
      });
      await request(server).get('/ok').expect(500);
      expect(limiter.snapshot().inflight).toBe(0);
    } finally {
      logged.mockRestore();
    }
  });
}

function admissionCases(appWith: AppWith): void {
  it('lets a request wait in the queue for a slot', async () => {
    const { server, held } = await appWith({ limit: 1, queue: { maxWaitMs: 10_000 } });
    const first = pending(server, '/held');
    await held.reached();
    const second = pending(server, '/ok');
    held.release();
    expect((await first).status).toBe(200);
    expect((await second).text).toBe('ok');
  });

  it('takes no slot for a skipped request', async () => {
    const { server, held } = await appWith({ limit: 1, skip: (req: { path: string }) => req.path === '/health' });
    const first = pending(server, '/held');
    await held.reached();
    await request(server).get('/health').expect(200, 'healthy');
    held.release();
    await first;
  });

  it('chooses the partition from the request: a partition over its share is refused, one under it let in', async () => {
    const { server, held, limiter } = await appWith({
      limit: 2,
      partitions: { critical: 0.5, batch: 0.5 },
      partition: (req: { get(name: string): string | undefined }) => (req.get('x-priority') === 'critical' ? 'critical' : 'batch'),
    });
    const partitions: (string | undefined)[] = [];
    limiter.on('sample', (event) => partitions.push(event.partition));
    // Two batch requests borrow critical's idle share.
    const batch = [pending(server, '/held'), pending(server, '/held')];
    await held.reached(2);
    await request(server).get('/ok').expect(503);
    await request(server).get('/ok').set('x-priority', 'critical').expect(200, 'ok');
    held.release();
    await Promise.all(batch);
    await vi.waitFor(() => expect(partitions).toEqual(['critical', 'batch', 'batch']), EVENTUALLY);
  });
}
