/**
 * Every algorithm as a descriptor's limit decides over gRPC what the in-process limiter decides
 * for the same spec and the same trace of calls and clock steps: the server adds a transport, no
 * limiting of its own.
 */
import { createLimiter, type LimitSpec, MemoryStore, type RuleSpec } from '@tollgate/core';
import { VirtualClock } from '@tollgate/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRateLimitClient, createServer, type RateLimitClient, type TollgateServer } from '../src/index.js';
import { memoryLogger } from './helpers/server.js';

const SPECS: Record<string, LimitSpec | { limits: LimitSpec[] }> = {
  gcra: { algorithm: 'gcra', rate: 2, period: '1s', burst: 3 },
  'token-bucket': { algorithm: 'token-bucket', capacity: 3, refillPerSecond: 2 },
  'fixed-window': { algorithm: 'fixed-window', limit: 3, window: '1s' },
  'sliding-window-log': { algorithm: 'sliding-window-log', limit: 3, window: '1s' },
  'sliding-window-counter': { algorithm: 'sliding-window-counter', limit: 3, window: '1s' },
  'leaky-bucket': { algorithm: 'leaky-bucket', rate: 2, burst: 3 },
  'warm-up': { algorithm: 'warm-up', rate: 4, warmup: '2s' },
  concurrency: { algorithm: 'concurrency', limit: 2, leaseTtl: '1s' },
  'three limits': { limits: [{ qps: 2, burst: 3 }, { perMinute: 5 }, { algorithm: 'sliding-window-log', limit: 6, window: '1h' }] },
};
/** Calls and clock steps (ms): a burst, a pause, another burst, a long pause, a burst. */
const TRACE = [0, 0, 0, 0, 0, 300, 0, 0, 700, 0, 0, 0, 2500, 0, 0, 0, 0];

describe('each algorithm over gRPC decides as the in-process limiter does', () => {
  const clock = new VirtualClock();
  let server: TollgateServer;
  let client: RateLimitClient;

  beforeAll(async () => {
    server = await createServer({
      config: {
        domain: 'algorithms',
        descriptors: Object.entries(SPECS).map(([key, spec]) => ({ key, rate_limit: 'limits' in spec ? spec : { limit: spec } })),
      },
      store: new MemoryStore({ clock: clock.now }),
      clock: clock.now,
      grpc: { host: '127.0.0.1', port: 0 },
      http: false,
      logger: memoryLogger(),
    });
    client = createRateLimitClient(`127.0.0.1:${server.grpcPort}`);
  });
  afterAll(async () => {
    client?.close();
    await server?.close();
  });

  for (const [algorithm, spec] of Object.entries(SPECS)) {
    it(algorithm, async () => {
      const limiter = createLimiter({ ...(spec as RuleSpec), store: new MemoryStore({ clock: clock.now }), clock: clock.now });
      const served: string[] = [];
      const inProcess: string[] = [];
      for (const step of TRACE) {
        clock.advance(step);
        const response = await client.shouldRateLimit({
          domain: 'algorithms',
          descriptors: [{ entries: [{ key: algorithm, value: 'v' }] }],
        });
        const decision = await limiter.consume('v');
        served.push(`${response.overall_code} ${response.statuses[0]!.limit_remaining}`);
        inProcess.push(`${decision.allowed ? 'OK' : 'OVER_LIMIT'} ${Math.max(0, decision.remaining)}`);
      }
      expect(served).toEqual(inProcess);
      // The trace reaches each limit and comes back under it.
      expect(new Set(served.map((line) => line.split(' ')[0]))).toEqual(new Set(['OK', 'OVER_LIMIT']));
    });
  }
});
