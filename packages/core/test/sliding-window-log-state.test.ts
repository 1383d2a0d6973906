import { type RedisTarget, startRedis } from '@tollgate/testing';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLimiter, type Duration, RedisStore } from '../src/index.js';
import { STORE_SEMANTICS } from './helpers/stores.js';

let target: RedisTarget;
let client: Redis;
let store: RedisStore;
let counter = 0;

beforeAll(async () => {
  target = await startRedis();
  client = new Redis(target.url);
  store = new RedisStore({ client, time: 'client', ttlSlackMs: 0 });
});
afterAll(async () => {
  await client?.quit();
  await target?.close();
});

/** A sliding-window-log limiter on Redis under a virtual client clock, and its sorted set. */
function logLimiter(limit: number, window: Duration) {
  let now = Date.UTC(2026, 5, 1, 12);
  const prefix = `swl${process.pid}-${counter++}`;
  const limiter = createLimiter({ algorithm: 'sliding-window-log', limit, window, store, prefix, clock: () => now, ...STORE_SEMANTICS });
  const key = `${prefix}:{user}:default:sliding-window-log`;
  return {
    limiter,
    key,
    advance: (ms: number) => {
      now += ms;
    },
    entries: async () => {
      const flat = await client.zrange(key, 0, -1, 'WITHSCORES');
      const pairs: [number, string][] = [];
      for (let i = 0; i < flat.length; i += 2) pairs.push([Number(flat[i + 1]) - Date.UTC(2026, 5, 1, 12), flat[i]!]);
      return pairs;
    },
  };
}

describe('sliding-window-log in Redis: one sorted set per identity', () => {
  it('holds one distinct member per admitted unit, never more than the limit, nothing for denials', async () => {
    const { limiter, entries, advance } = logLimiter(4, '1s');
    await Promise.all(Array.from({ length: 3 }, () => limiter.consume('user')));
    await limiter.consume('user', { cost: 2 });
    advance(10);
    await limiter.consume('user');
    const held = await entries();
    expect(held.map(([at]) => at)).toEqual([0, 0, 0, 10]);
    expect(new Set(held.map(([, member]) => member)).size).toBe(4);
  });

  it('trims what slid out when it writes, and expires the key when the newest entry slides out', async () => {
    const { limiter, entries, advance, key } = logLimiter(3, '1s');
    await limiter.consume('user', { cost: 2 });
    advance(600);
    await limiter.consume('user');
    expect(await client.pttl(key)).toBeGreaterThan(900);
    advance(500);
    await limiter.consume('user');
    expect((await entries()).map(([at]) => at)).toEqual([600, 1100]);
    const ttl = await client.pttl(key);
    expect(ttl).toBeGreaterThan(900);
    expect(ttl).toBeLessThanOrEqual(1000);
  });

  it('a refund removes the newest members; refunding all of them deletes the key', async () => {
    const { limiter, entries, advance, key } = logLimiter(5, '1m');
    await limiter.consume('user');
    advance(100);
    await limiter.consume('user', { cost: 3 });
    await limiter.refund('user', { cost: 2 });
    expect((await entries()).map(([at]) => at)).toEqual([0, 100]);
    await limiter.refund('user', { cost: 2 });
    expect(await client.exists(key)).toBe(0);
  });
});
