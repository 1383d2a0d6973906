import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { type RedisTarget, startRedis } from '@tollgate/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const WORKER = fileURLToPath(new URL('./default-prefix-worker.ts', import.meta.url));
/** Three processes loading TypeScript through tsx, one after the other: on a loaded 2-core machine, seconds each. */
const STARTUP_ALLOWANCE_MS = 120_000;

let target: RedisTarget;
beforeAll(async () => {
  target = await startRedis();
});
/** Names the limits of this run: the default prefix digests them, so a run never meets an earlier run's state. */
const run = `r${Date.now()}`;
afterAll(() => target?.close());

/** What one process, building the rules of routes `a` and `b` in `order`, reports of `checks`. */
function inProcess(order: string, rules: object, checks: [string, number][]): Promise<{ actions?: string[]; error?: object }> {
  const worker = fork(WORKER, [target.url, order, JSON.stringify(rules), JSON.stringify(checks)], {
    execArgv: ['--import', 'tsx'],
    stdio: 'inherit',
  });
  return new Promise((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('exit', (code) => code !== 0 && reject(new Error(`worker exited with ${code}`)));
  });
}

describe('inline rules without a prefix on Redis, built in opposite orders by two processes', () => {
  it(
    'keep a budget per rule: /a spent on one process leaves /b open on the other',
    async () => {
      const rules = { a: { perMinute: 3, name: run }, b: { perMinute: 4, name: run } };
      expect(await inProcess('a,b', rules, [['a', 4]])).toEqual({ actions: ['a:pass', 'a:pass', 'a:pass', 'a:reject'] });
      expect(
        await inProcess('b,a', rules, [
          ['b', 1],
          ['a', 1],
        ]),
      ).toEqual({ actions: ['b:pass', 'a:reject'] });
    },
    STARTUP_ALLOWANCE_MS,
  );

  it(
    'refuse a second rule with the same limits until it has a prefix of its own',
    async () => {
      const rules = { c: { perMinute: 5, name: run }, d: { perMinute: 5, name: run } };
      const refused = { error: { code: 'ERR_TOLLGATE_INVALID_OPTION', field: 'prefix' } };
      expect(await inProcess('c,d', rules, [['c', 1]])).toEqual(refused);
      expect(await inProcess('d,c', rules, [['d', 1]])).toEqual(refused);
      const named = { ...rules, d: { ...rules.d, prefix: `route-d-${run}` } };
      expect(await inProcess('d,c', named, [['d', 1]])).toEqual({ actions: ['d:pass'] });
    },
    STARTUP_ALLOWANCE_MS,
  );
});
