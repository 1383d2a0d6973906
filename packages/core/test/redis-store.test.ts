import { createHash } from 'node:crypto';
import { RedisClusterProcess, type RedisTarget, startRedis } from '@tollgate/testing';
import { type Cluster, Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLimiter, type LimitSpec, RedisStore, type StoreErrorEvent } from '../src/index.js';
import { driverCalls } from './helpers/command-stats.js';
import { STORE_SEMANTICS } from './helpers/stores.js';

let target: RedisTarget;
let client: Redis;
let store: RedisStore;
let counter = 0;
const uniquePrefix = () => `rs${process.pid}-${counter++}`;

async function scriptCalls(): Promise<number> {
  const stats = await client.info('commandstats');
  return driverCalls(stats);
}

beforeAll(async () => {
  target = await startRedis();
  client = new Redis(target.url);
  store = new RedisStore({ client });
});
afterAll(async () => {
  await client?.quit();
  await target?.close();
});

/** Two string limits (packed in one key) around a sorted-set one (a key of its own). */
const MIXED_LIMITS: LimitSpec[] = [
  { name: 'second', qps: 10 },
  { name: 'minute', algorithm: 'sliding-window-log', limit: 100, window: '1m' },
  { name: 'day', perDay: 1000 },
];
/** The packed key's name: a digest of the string limits' `<limit>:<algorithm>`, joined by `+`. */
const MIXED_DIGEST = createHash('sha256').update('second:gcra+day:gcra').digest('base64url').slice(0, 11);

describe('RedisStore on one node', () => {
  it("decides on Redis' own clock by default", async () => {
    const limiter = createLimiter({ perHour: 5, store, prefix: uniquePrefix(), ...STORE_SEMANTICS });
    const decisions = await Promise.all(Array.from({ length: 6 }, () => limiter.consume('a')));
    expect(decisions.map((d) => d.allowed)).toEqual([true, true, true, true, true, false]);
    // One request per 720 s comes back; the first may already be a few ms old.
    expect(decisions[5]!.retryAfterMs).toBeGreaterThan(715_000);
    expect(decisions[5]!.retryAfterMs).toBeLessThanOrEqual(720_000);
  });

  it('settles a hold of a rule of several units and a lease in one script call, on Redis time', async () => {
    const limiter = createLimiter({
      limits: [
        { name: 'in-flight', algorithm: 'concurrency', limit: 1, leaseTtl: '1m' },
        { name: 'minute', algorithm: 'sliding-window-log', limit: 10, window: '1m' },
        { name: 'tokens', algorithm: 'fixed-window', limit: 1000, window: '1m', unit: 'tokens' },
      ],
      store,
      prefix: uniquePrefix(),
      ...STORE_SEMANTICS,
    });
    const hold = await limiter.hold('a', { cost: { tokens: 400 } });
    const before = await scriptCalls();
    const settled = await hold.settle({ tokens: 1200 });
    expect(await scriptCalls()).toBe(before + 1);
    // The lease is back, the log keeps its entry, and the tokens are charged beyond the limit.
    expect(settled.limits.map((limit) => [limit.name, limit.allowed, limit.remaining])).toEqual([
      ['in-flight', true, 0],
      ['minute', true, 8],
      ['tokens', false, 0],
    ]);
  });

  it('decides the operations of several rules coalesced into one script call', async () => {
    const twoLimits = createLimiter({ limits: [{ perHour: 2 }, { perDay: 3 }], store, prefix: uniquePrefix(), ...STORE_SEMANTICS });
    const oneLimit = createLimiter({ perHour: 1, store, prefix: uniquePrefix(), ...STORE_SEMANTICS });
    const before = await scriptCalls();
    const decisions = await Promise.all([twoLimits.consume('a'), oneLimit.consume('a'), twoLimits.consume('a'), oneLimit.consume('a')]);
    expect(await scriptCalls()).toBe(before + 1);
    expect(decisions.map((d) => [d.allowed, d.source])).toEqual([
      [true, 'store'],
      [true, 'store'],
      [true, 'store'],
      [false, 'store'],
    ]);
  });

  it("keeps Redis' clock under time: 'server', whatever clock the limiter has", async () => {
    let now = Date.now();
    const limiter = createLimiter({
      algorithm: 'fixed-window',
      limit: 1,
      window: '1m',
      store,
      prefix: uniquePrefix(),
      clock: () => now,
      ...STORE_SEMANTICS,
    });
    expect((await limiter.consume('a')).allowed).toBe(true);
    now += 3_600_000;
    expect(await limiter.consume('a')).toMatchObject({ allowed: false, remaining: 0 });
  });

  it("dates a consume's charge by Redis TIME under time: 'server', so its refund is decided on one timeline", async () => {
    const skewedMs = Date.now() - 3_600_000;
    const limiter = createLimiter({
      algorithm: 'fixed-window',
      limit: 1,
      window: '1m',
      store,
      prefix: uniquePrefix(),
      clock: () => skewedMs,
      ...STORE_SEMANTICS,
    });
    const [before, decision, after] = [Date.now(), await limiter.consume('a'), Date.now()];
    expect(decision.charge!.atMs).toBeGreaterThanOrEqual(before - 1000);
    expect(decision.charge!.atMs).toBeLessThanOrEqual(after + 1000);
    expect(await limiter.refund('a', { charge: decision })).toMatchObject({ allowed: true, remaining: 0 });
    expect((await limiter.consume('a')).allowed).toBe(true);
  });

  it("decides on the limiter's clock under time: 'client', else on the store's", async () => {
    let limiterNow = Date.now();
    let storeNow = limiterNow;
    const clientTime = new RedisStore({ client, time: 'client', clock: () => storeNow });
    const spec = { algorithm: 'fixed-window', limit: 1, window: '1m', store: clientTime, ...STORE_SEMANTICS } as const;
    const driven = createLimiter({ ...spec, prefix: uniquePrefix(), clock: () => limiterNow });
    const undriven = createLimiter({ ...spec, prefix: uniquePrefix() });
    await Promise.all([driven.consume('a'), undriven.consume('a')]);
    limiterNow += 60_000;
    expect((await driven.consume('a')).allowed).toBe(true);
    expect((await undriven.consume('a')).allowed).toBe(false);
    storeNow += 60_000;
    expect((await undriven.consume('a')).allowed).toBe(true);
  });

  it('writes every key with an expiry, under <prefix>:{<identity>}:<limit>', async () => {
    const prefix = uniquePrefix();
    const limiter = createLimiter({ algorithm: 'fixed-window', limit: 10, window: '1m', store, prefix, ...STORE_SEMANTICS });
    await limiter.consume('user}{7');
    const keys = await client.keys(`${prefix}:*`);
    expect(keys).toEqual([`${prefix}:{user%7D%7B7}:default:fixed-window:v2`]);
    const ttl = await client.pttl(keys[0]!);
    expect(ttl).toBeGreaterThan(55_000);
    expect(ttl).toBeLessThanOrEqual(60_000);
  });

  it('adds the clock-skew slack to keys written on a client clock', async () => {
    const prefix = uniquePrefix();
    const limiter = createLimiter({
      algorithm: 'fixed-window',
      limit: 10,
      window: '1m',
      store: new RedisStore({ client, time: 'client' }),
      prefix,
      clock: Date.now,
      ...STORE_SEMANTICS,
    });
    await limiter.consume('a');
    const ttl = await client.pttl(`${prefix}:{a}:default:fixed-window:v2`);
    expect(ttl).toBeGreaterThan(60_000);
    expect(ttl).toBeLessThanOrEqual(65_000);
  });

  it('coalesces concurrent decisions into few script calls, in order and exactly', async () => {
    const limiter = createLimiter({
      algorithm: 'gcra',
      rate: 1,
      period: '1h',
      burst: 100,
      store,
      prefix: uniquePrefix(),
      ...STORE_SEMANTICS,
    });
    const callsBefore = await scriptCalls();
    const decisions = await Promise.all(Array.from({ length: 1000 }, () => limiter.consume('hot')));
    const calls = (await scriptCalls()) - callsBefore;
    expect(decisions.map((d) => d.allowed)).toEqual(Array.from({ length: 1000 }, (_, i) => i < 100));
    expect(decisions.slice(0, 100).map((d) => d.remaining)).toEqual(Array.from({ length: 100 }, (_, i) => 99 - i));
    expect(calls).toBeLessThanOrEqual(Math.ceil(1000 / 128) + 1);
  });

  it('recovers when Redis loses its functions (Function not found → FUNCTION LOAD)', async () => {
    const limiter = createLimiter({ qps: 10, store, prefix: uniquePrefix(), ...STORE_SEMANTICS });
    expect((await limiter.consume('a')).allowed).toBe(true);
    await client.function('FLUSH');
    expect(await limiter.consume('a')).toMatchObject({ allowed: true, remaining: 8 });
  });

  it('reports a coded store error when the script fails, answers per policy, and keeps serving others', async () => {
    const prefix = uniquePrefix();
    const errors: StoreErrorEvent[] = [];
    const limiter = createLimiter({ qps: 10, store, prefix, onStoreError: 'closed', events: { storeError: (e) => errors.push(e) } });
    await client.hset(`${prefix}:{broken}:default:gcra:v2`, 'field', 'value');
    expect(await limiter.consume('broken')).toMatchObject({ allowed: false, source: 'policy' });
    expect(errors.map((e) => [e.reason, e.error.code])).toEqual([['error', 'ERR_TOLLGATE_STORE']]);
    expect(await limiter.consume('fine')).toMatchObject({ allowed: true, source: 'store' });
  });

  it('never reads a key an earlier state format wrote (text, without the :v2 ending)', async () => {
    const prefix = uniquePrefix();
    const limiter = createLimiter({ qps: 10, burst: 5, store, prefix, ...STORE_SEMANTICS });
    // The GCRA state of 0.1: the theoretical arrival time in µs, as text; this one is far ahead.
    const earlier = `${prefix}:{u}:default:gcra`;
    const farAhead = String((Date.now() + 3_600_000) * 1000);
    await client.set(earlier, farAhead, 'PX', 60_000);
    expect(await limiter.consume('u')).toMatchObject({ allowed: true, remaining: 4, source: 'store' });
    expect(await client.get(earlier)).toBe(farAhead);
    expect((await client.keys(`${prefix}:*`)).sort()).toEqual([earlier, `${earlier}:v2`]);
  });

  it('keeps every string limit of a rule under one key and its sorted sets under the same hash tag', async () => {
    const prefix = uniquePrefix();
    const limiter = createLimiter({
      limits: MIXED_LIMITS,
      store,
      prefix,
      ...STORE_SEMANTICS,
    });
    expect((await limiter.consume('u')).allowed).toBe(true);
    expect((await client.keys(`${prefix}:*`)).sort()).toEqual(
      [`${prefix}:{u}:minute:sliding-window-log`, `${prefix}:{u}:${MIXED_DIGEST}:v2`].sort(),
    );
    const packedTtl = await client.pttl(`${prefix}:{u}:${MIXED_DIGEST}:v2`);
    // The day limit lives longest: the packed key expires with it, not with the second limit.
    expect(packedTtl).toBeGreaterThan(60_000);
  });

  it('fails a multi-limit op on a key of another type before writing any of its limits', async () => {
    const prefix = uniquePrefix();
    const errors: unknown[] = [];
    const limiter = createLimiter({
      limits: MIXED_LIMITS,
      store,
      prefix,
      ...STORE_SEMANTICS,
      events: { storeError: (event) => errors.push(event.error) },
    });
    const packed = `${prefix}:{broken}:${MIXED_DIGEST}:v2`;
    const log = `${prefix}:{broken}:minute:sliding-window-log`;
    expect((await limiter.consume('other')).allowed).toBe(true);
    await client.hset(log, 'field', 'value');
    expect(await limiter.consume('broken')).toMatchObject({ allowed: false, source: 'policy' });
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ code: 'ERR_TOLLGATE_STORE', message: expect.stringMatching(/WRONGTYPE/) });
    expect(await client.exists(packed)).toBe(0);
    expect(await client.hget(log, 'field')).toBe('value');
    // With its string states present, the op still fails on the hash and leaves them as they were.
    await client.set(packed, '1|2', 'PX', 60_000);
    expect(await limiter.consume('broken')).toMatchObject({ allowed: false, source: 'policy' });
    expect(errors).toHaveLength(2);
    expect(await client.get(packed)).toBe('1|2');
    // The packed key itself of another type fails the op too.
    await client.del(log, packed);
    await client.hset(packed, 'field', 'value');
    expect(await limiter.consume('broken')).toMatchObject({ allowed: false, source: 'policy' });
    expect(errors).toHaveLength(3);
    expect(await client.exists(log)).toBe(0);
  });

  it.runIf(process.env.REDIS_URL === undefined)('comes back after a Redis restart, scripts and all', async () => {
    const server = target.process!;
    const limiter = createLimiter({ qps: 10, store, prefix: uniquePrefix(), ...STORE_SEMANTICS });
    expect((await limiter.consume('a')).allowed).toBe(true);
    await server.kill();
    await server.launch();
    // ioredis may have reconnected while launch() was still polling the new server.
    if (client.status !== 'ready') await new Promise((resolve) => client.once('ready', resolve));
    expect(await limiter.consume('a')).toMatchObject({ allowed: true, remaining: 9 });
  });

  it('refuses options it cannot honour', () => {
    expect(() => new RedisStore({ client: {} as never })).toThrow(/client/);
    expect(() => new RedisStore({ client, time: 'server', clock: Date.now })).toThrow(/clock/);
    expect(() => new RedisStore({ client, maxBatchSize: 0 })).toThrow(/maxBatchSize/);
  });
});

describe('RedisStore on a 3-master cluster', () => {
  let cluster: RedisClusterProcess;
  let clusterClient: Cluster;

  beforeAll(async () => {
    cluster = await RedisClusterProcess.start(3);
    clusterClient = cluster.client();
  });
  afterAll(async () => {
    await clusterClient?.quit();
    await cluster?.stop();
  });

  it('routes coalesced decisions per hash slot and keeps each identity exact', async () => {
    const clusterStore = new RedisStore({ client: clusterClient });
    const limiter = createLimiter({
      limits: [{ perHour: 2 }, { algorithm: 'fixed-window', limit: 100, window: '1h' }],
      store: clusterStore,
      prefix: uniquePrefix(),
      ...STORE_SEMANTICS,
    });
    const identities = Array.from({ length: 300 }, (_, i) => `user-${i}`);
    const decisions = await Promise.all(identities.flatMap((id) => [limiter.consume(id), limiter.consume(id), limiter.consume(id)]));
    expect(decisions.map((d) => d.allowed)).toEqual(identities.flatMap(() => [true, true, false]));
    const masters = clusterClient.nodes('master');
    const keyCounts = await Promise.all(masters.map((node) => node.dbsize()));
    expect(keyCounts.filter((count) => count > 0).length).toBe(3);
  });
});
