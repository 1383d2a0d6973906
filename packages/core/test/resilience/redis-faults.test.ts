import { RedisProcess } from '@tollgate/testing';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createLimiter, type Decision, type Limiter, RedisStore } from '../../src/index.js';
import { commandCalls } from '../helpers/command-stats.js';

const TIMEOUT_MS = 100;
/** Scheduling slack on a shared 2-core machine: a decision must come back within timeout + this. */
const SLACK_MS = 300;

interface Answer {
  sentAt: number;
  latencyMs: number;
  decision: Decision;
}

/** Sends `perTick` requests every 10 ms until `stop()`, recording every answer and every rejection. */
function stream(limiter: Limiter, perTick = 3) {
  const answers: Answer[] = [];
  const rejections: unknown[] = [];
  const inFlight = new Set<Promise<void>>();
  let i = 0;
  const timer = setInterval(() => {
    for (let j = 0; j < perTick; j++) {
      const sentAt = performance.now();
      const request = limiter
        .consume(`user-${i++ % 50}`)
        .then(
          (decision) => void answers.push({ sentAt, latencyMs: performance.now() - sentAt, decision }),
          (error: unknown) => void rejections.push(error),
        )
        .finally(() => inFlight.delete(request));
      inFlight.add(request);
    }
  }, 10);
  return {
    answers,
    rejections,
    async stop() {
      clearInterval(timer);
      await Promise.all(inFlight);
    },
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(condition: () => boolean, withinMs: number): Promise<number> {
  const started = performance.now();
  while (!condition()) {
    if (performance.now() - started > withinMs) throw new Error(`condition not met within ${withinMs} ms`);
    await sleep(10);
  }
  return performance.now() - started;
}

let server: RedisProcess;
let client: Redis;
const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => unhandled.push(reason);

beforeAll(async () => {
  server = await RedisProcess.start();
});
afterAll(async () => {
  await server?.stop();
});
beforeEach(() => {
  unhandled.length = 0;
  process.on('unhandledRejection', onUnhandled);
  // ioredis defaults: offline queue on, reconnect with backoff; errors go to this listener.
  client = new Redis(server.url);
  client.on('error', () => {});
});
afterEach(async () => {
  client.disconnect();
  await sleep(50);
  process.off('unhandledRejection', onUnhandled);
  expect(unhandled).toEqual([]);
});

function faultTolerantLimiter(onStoreError: 'open' | 'closed') {
  const log: string[] = [];
  const limiter = createLimiter({
    qps: 1000,
    store: new RedisStore({ client }),
    prefix: `fault${process.pid}${onStoreError}`,
    timeout: TIMEOUT_MS,
    onStoreError,
    breaker: { failureThreshold: 5, coolDownMs: 300 },
    events: { breakerOpen: () => log.push('open'), breakerClose: () => log.push('close') },
  });
  return { limiter, log };
}

function expectAnsweredPerPolicy(answers: Answer[], allowed: boolean) {
  for (const { latencyMs, decision } of answers) {
    expect(latencyMs).toBeLessThan(TIMEOUT_MS + SLACK_MS);
    if (decision.source === 'policy') expect(decision.allowed).toBe(allowed);
    else expect(decision.source).toBe('store');
  }
}

describe('Redis killed during a stream of requests, then restarted', () => {
  it.each(['open', 'closed'] as const)('answers every request per policy %s within the timeout and recovers', async (policy) => {
    const { limiter, log } = faultTolerantLimiter(policy);
    const traffic = stream(limiter);
    await sleep(300);
    await server.kill();
    const killedAt = performance.now();
    await until(() => limiter.breakerState !== 'closed', 2000);
    await sleep(700);
    const restartingAt = performance.now();
    await server.launch();
    const restartedAt = performance.now();
    const recoveryMs = await until(() => traffic.answers.some((a) => a.sentAt > restartedAt && a.decision.source === 'store'), 3000);
    await sleep(200);
    await traffic.stop();

    expect(traffic.rejections).toEqual([]);
    expectAnsweredPerPolicy(traffic.answers, policy === 'open');
    // Sent while Redis was gone, and answered (by timeout at the latest) before it came back.
    const duringOutage = traffic.answers.filter((a) => a.sentAt > killedAt && a.sentAt < restartingAt - TIMEOUT_MS);
    expect(duringOutage.length).toBeGreaterThan(100);
    expect(duringOutage.every((a) => a.decision.source === 'policy')).toBe(true);
    // While the breaker is open, decisions cost next to nothing.
    const fast = duringOutage.filter((a) => a.latencyMs < 10).length;
    expect(fast / duringOutage.length).toBeGreaterThan(0.8);
    expect(recoveryMs).toBeLessThan(3000);
    expect(log[0]).toBe('open');
    expect(log.at(-1)).toBe('close');
    expect(limiter.breakerState).toBe('closed');
    // The restarted server never had the library: the store met "Function not found" and loaded it again.
    const stats = await client.info('commandstats');
    expect(commandCalls(stats, 'function|load')).toBeGreaterThan(0);
  });
});

describe('Redis paused (SIGSTOP): connected but silent', () => {
  it('answers every request within the timeout, opens the breaker, and recovers on resume', async () => {
    const { limiter, log } = faultTolerantLimiter('open');
    const traffic = stream(limiter);
    await sleep(300);
    server.pause();
    const pausedAt = performance.now();
    await until(() => limiter.breakerState !== 'closed', 2000);
    await sleep(700);
    server.resume();
    const resumedAt = performance.now();
    const recoveryMs = await until(() => traffic.answers.some((a) => a.sentAt > resumedAt && a.decision.source === 'store'), 3000);
    await sleep(200);
    await traffic.stop();

    expect(traffic.rejections).toEqual([]);
    expectAnsweredPerPolicy(traffic.answers, true);
    // Sent after the calls in flight at the pause timed out, and answered before the resume.
    const duringPause = traffic.answers.filter((a) => a.sentAt > pausedAt + TIMEOUT_MS && a.sentAt < resumedAt - TIMEOUT_MS);
    expect(duringPause.length).toBeGreaterThan(100);
    expect(duringPause.every((a) => a.decision.source === 'policy')).toBe(true);
    expect(recoveryMs).toBeLessThan(2000);
    expect(log).toEqual(['open', 'close']);
  });
});
