import { fileURLToPath } from 'node:url';
import { type RedisTarget, startRedis } from '@tollgate/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { releasedTogether } from './released-together.js';

const WORKER = fileURLToPath(new URL('./worker.ts', import.meta.url));
const PROCESSES = 4;
const REQUESTS_PER_PROCESS = 400;
/** Four processes each loading TypeScript through tsx: on a loaded 2-core machine, starting them alone takes seconds. */
const STARTUP_ALLOWANCE_MS = 120_000;

let target: RedisTarget;
beforeAll(async () => {
  target = await startRedis();
});
afterAll(() => target?.close());

/** Starts the workers, releases them together, and sums what they were admitted. */
async function admittedAcrossProcesses(rule: object, prefix: string): Promise<number> {
  const args = [target.url, prefix, String(REQUESTS_PER_PROCESS), JSON.stringify(rule)];
  const tallies = await releasedTogether<{ admitted: number }>(WORKER, args, PROCESSES);
  return tallies.reduce((sum, t) => sum + t.admitted, 0);
}

describe(`${PROCESSES} processes × ${REQUESTS_PER_PROCESS} concurrent requests at one key on one Redis`, () => {
  it.each([
    ['gcra', { algorithm: 'gcra', rate: 1, period: '1h', burst: 250 }, 250],
    ['token-bucket', { algorithm: 'token-bucket', capacity: 333, refillAmount: 1, refillInterval: '1h' }, 333],
    ['fixed-window', { algorithm: 'fixed-window', limit: 500, window: '1h' }, 500],
    ['sliding-window-log', { algorithm: 'sliding-window-log', limit: 450, window: '1h' }, 450],
    ['sliding-window-counter', { algorithm: 'sliding-window-counter', limit: 550, window: '1d' }, 550],
    ['leaky-bucket policing', { algorithm: 'leaky-bucket', rate: 1, period: '1h', burst: 300 }, 300],
    // One slot per 86.4 s, up to a day ahead: slots 0..1000.
    ['leaky-bucket shaping', { algorithm: 'leaky-bucket', mode: 'shaping', rate: 1000, period: '1d', maxDelay: '1d' }, 1001],
    ['a 2-limit rule', { limits: [{ perHour: 700 }, { algorithm: 'fixed-window', limit: 420, window: '1h' }] }, 420],
  ])(
    '%s admits exactly the limit',
    async (name, rule, limit) => {
      expect(await admittedAcrossProcesses(rule, `mp-${name.replaceAll(' ', '-')}-${Date.now()}`)).toBe(limit);
    },
    STARTUP_ALLOWANCE_MS,
  );
});
