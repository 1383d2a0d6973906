import { fileURLToPath } from 'node:url';
import { RedisClusterProcess, type RedisTarget, startRedis } from '@tollgate/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { releasedTogether } from './released-together.js';

const WORKER = fileURLToPath(new URL('./leasing-worker.ts', import.meta.url));
const PROCESSES = 4;
const REQUESTS_PER_PROCESS = 1500;
/** Four processes each loading TypeScript through tsx: on a loaded 2-core machine, starting them alone takes seconds. */
const STARTUP_ALLOWANCE_MS = 120_000;

let single: RedisTarget;
let cluster: RedisClusterProcess;
beforeAll(async () => {
  [single, cluster] = await Promise.all([startRedis(), RedisClusterProcess.start(3)]);
}, STARTUP_ALLOWANCE_MS);
afterAll(() => Promise.all([single?.close(), cluster?.stop()]));

interface Tally {
  admitted: number;
  leased: number;
}

/** Starts the workers, releases them together, and sums what they were admitted and what their leases answered. */
async function acrossProcesses(target: object, rule: object, prefix: string): Promise<Tally> {
  const args = [JSON.stringify(target), prefix, String(REQUESTS_PER_PROCESS), JSON.stringify(rule)];
  const tallies = await releasedTogether<Tally>(WORKER, args, PROCESSES);
  return { admitted: tallies.reduce((sum, t) => sum + t.admitted, 0), leased: tallies.reduce((sum, t) => sum + t.leased, 0) };
}

/**
 * Limits over an hour or a day: what was admitted in the run is exact. Leases hold at most 1/16 of
 * the limit each, so 4 processes leave at most 4/16 of it unspent when the run ends.
 */
const RULES: [string, object, number][] = [
  ['gcra', { algorithm: 'gcra', rate: 1, period: '1h', burst: 2500 }, 2500],
  ['token-bucket', { algorithm: 'token-bucket', capacity: 3333, refillAmount: 1, refillInterval: '1h' }, 3333],
  ['fixed-window', { algorithm: 'fixed-window', limit: 5000, window: '1h' }, 5000],
  ['sliding-window-log', { algorithm: 'sliding-window-log', limit: 4500, window: '1h' }, 4500],
  ['sliding-window-counter', { algorithm: 'sliding-window-counter', limit: 5500, window: '1d' }, 5500],
  ['a 2-limit rule', { limits: [{ perHour: 7000 }, { algorithm: 'fixed-window', limit: 4200, window: '1h' }] }, 4200],
];

describe.each([
  ['one Redis', () => ({ url: single.url })],
  ['a 3-master Cluster', () => ({ nodes: cluster.startupNodes })],
])(`${PROCESSES} processes × ${REQUESTS_PER_PROCESS} requests at one hot key, leasing, on %s`, (_backend, target) => {
  it.each(RULES)(
    '%s never admits more than the limit, and leases answer most decisions',
    async (name, rule, limit) => {
      const { admitted, leased } = await acrossProcesses(target(), rule, `lease-${name.replaceAll(' ', '-')}-${Date.now()}`);
      expect(admitted).toBeLessThanOrEqual(limit);
      expect(admitted).toBeGreaterThanOrEqual(limit - Math.floor(limit / 16) * PROCESSES);
      expect(leased).toBeGreaterThan(admitted / 2);
    },
    STARTUP_ALLOWANCE_MS,
  );
});
