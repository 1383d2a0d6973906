import { type RedisTarget, startRedis } from '@tollgate/testing';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadRedisRuleSet, publishRuleSet, type RuleRequest, type RuleSet, type TollgateError } from '../../src/index.js';

let target: RedisTarget;
let admin: Redis;
const clients: Redis[] = [];
const sets: RuleSet[] = [];
let counter = 0;

beforeAll(async () => {
  target = await startRedis();
  admin = new Redis(target.url);
});
afterEach(() => {
  for (const set of sets.splice(0)) set.close();
  for (const client of clients.splice(0)) client.disconnect();
});
afterAll(async () => {
  await admin?.quit();
  await target?.close();
});

const rulesWithBurst = (burst: number) => `rules:\n  - name: api\n    limit: { qps: 1, burst: ${burst} }\n`;
const request: RuleRequest = { method: 'GET', path: '/x', ip: '192.0.2.5', headers: {} };

/** One application instance: its own connection, its own rule set from Redis. */
async function instance(key: string): Promise<RuleSet> {
  const client = new Redis(target.url);
  clients.push(client);
  const set = await loadRedisRuleSet({ client, key, debounceMs: 10 });
  sets.push(set);
  return set;
}

function burstOf(set: RuleSet): number {
  const { limiter } = set.match(request)!;
  return limiter.limits[0]!.algorithm.limit(limiter.limits[0]!.params);
}

function next<T>(set: RuleSet, event: 'reload' | 'error'): Promise<T> {
  return new Promise((resolve) => {
    const off = set.on(event, (e) => {
      off();
      resolve(e as T);
    });
  });
}

describe('rule set held in Redis', () => {
  it('reaches every instance when a change is published', async () => {
    const key = `rules-${process.pid}-${counter++}`;
    await publishRuleSet(admin, rulesWithBurst(2), { key });
    const [a, b] = [await instance(key), await instance(key)];
    expect([burstOf(a), burstOf(b)]).toEqual([2, 2]);
    const reloads = Promise.all([next(a, 'reload'), next(b, 'reload')]);
    await publishRuleSet(admin, rulesWithBurst(7), { key });
    await reloads;
    expect([burstOf(a), burstOf(b)]).toEqual([7, 7]);
  });

  it('refuses to publish an invalid document, and instances keep their rules when one is stored anyway', async () => {
    const key = `rules-${process.pid}-${counter++}`;
    await publishRuleSet(admin, rulesWithBurst(3), { key });
    const a = await instance(key);
    await expect(publishRuleSet(admin, rulesWithBurst(0), { key })).rejects.toMatchObject({ field: 'rules[0].limit.burst' });
    expect(await admin.get(key)).toBe(rulesWithBurst(3));

    const failed = next<TollgateError>(a, 'error');
    await admin.set(key, 'rules: [');
    await admin.publish(`${key}:changed`, 'changed');
    expect((await failed).message).toMatch(new RegExp(`redis key ${key}: not valid YAML`));
    expect(burstOf(a)).toBe(3);
  });

  it('refuses to start from a key holding nothing', async () => {
    const client = new Redis(target.url);
    clients.push(client);
    await expect(loadRedisRuleSet({ client, key: `absent-${process.pid}` })).rejects.toThrow(/no rule set is stored there/);
  });
});

describe('the subscriber connection of a rule set held in Redis', () => {
  async function subscribers(channel: string): Promise<number> {
    const [, count] = (await admin.pubsub('NUMSUB', channel)) as [string, number];
    return count;
  }

  async function waitForSubscribers(channel: string, expected: number): Promise<void> {
    for (let attempt = 0; attempt < 200 && (await subscribers(channel)) !== expected; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(await subscribers(channel)).toBe(expected);
  }

  it('closes when the user quits their client, without rules.close()', async () => {
    const key = `rules-${process.pid}-${counter++}`;
    await publishRuleSet(admin, rulesWithBurst(2), { key });
    const client = new Redis(target.url);
    const set = await loadRedisRuleSet({ client, key });
    await waitForSubscribers(`${key}:changed`, 1);
    await client.quit();
    await waitForSubscribers(`${key}:changed`, 0);
    set.close(); // still allowed afterwards
  });

  it('closes with rules.close() and leaves the user client open', async () => {
    const key = `rules-${process.pid}-${counter++}`;
    await publishRuleSet(admin, rulesWithBurst(2), { key });
    const set = await instance(key);
    await waitForSubscribers(`${key}:changed`, 1);
    set.close();
    await waitForSubscribers(`${key}:changed`, 0);
    expect(clients.at(-1)!.status).toBe('ready');
  });
});
