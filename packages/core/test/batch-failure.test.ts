import { RedisClusterProcess, type RedisTarget, startRedis } from '@tollgate/testing';
import calculateSlot from 'cluster-key-slot';
import { type Cluster, Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLimiter, type LimitSpec, RedisStore } from '../src/index.js';
import { STORE_SEMANTICS } from './helpers/stores.js';

// Redis keeps the writes a script made before one of its commands failed. Operations
// coalesced into one script call must therefore never be charged when the call fails.

let single: RedisTarget;
let cluster: RedisClusterProcess;
const clients: { name: string; client: Redis | Cluster }[] = [];
let counter = 0;

beforeAll(async () => {
  [single, cluster] = await Promise.all([startRedis(), RedisClusterProcess.start(3)]);
  clients.push({ name: 'redis', client: new Redis(single.url) }, { name: 'cluster', client: cluster.client() });
});
afterAll(async () => {
  await Promise.all(clients.map(({ client }) => client.quit()));
  await Promise.all([single?.close(), cluster?.stop()]);
});

/** Two identities whose keys share a hash slot, so the store sends them in one script call. */
const GOOD = 'good12654';
const BAD = 'bad';

const CASES: [string, LimitSpec, string][] = [
  // A string state's key ends with the name of its format (`:v2`); a sorted set's does not.
  ['gcra', { algorithm: 'gcra', rate: 10, burst: 5 }, 'gcra:v2'],
  ['sliding-window-log', { algorithm: 'sliding-window-log', limit: 5, window: '1m' }, 'sliding-window-log'],
  ['token-bucket', { algorithm: 'token-bucket', capacity: 5, refillPerSecond: 1 }, 'token-bucket:v2'],
];

describe.each(['redis', 'cluster'])('a coalesced batch with one broken key on %s', (backend) => {
  it('the identities share a slot', () => {
    expect(calculateSlot(GOOD)).toBe(calculateSlot(BAD));
  });

  it.each(CASES)('%s: an operation answered as a store failure was not charged', async (_name, spec, suffix) => {
    const { client } = clients.find((c) => c.name === backend)!;
    const prefix = `bf${process.pid}-${counter++}`;
    const now = Date.UTC(2026, 5, 1, 12);
    const store = new RedisStore({ client, time: 'client' });
    const limiter = createLimiter({ ...spec, store, clock: () => now, prefix, ...STORE_SEMANTICS });
    const fresh = await limiter.peek(GOOD);
    // A key of the wrong type: a hash where the algorithm keeps a string or a sorted set, and the reverse.
    const badKey = `${prefix}:{${BAD}}:default:${suffix}`;
    if (suffix === 'sliding-window-log') await client.set(badKey, 'x');
    else await client.hset(badKey, 'field', 'value');

    const [good, bad] = await Promise.all([limiter.consume(GOOD), limiter.consume(BAD)]);
    expect(bad).toMatchObject({ allowed: false, source: 'policy' });
    if (good.source === 'store') expect(good.allowed).toBe(true);
    else expect(await limiter.peek(GOOD)).toEqual(fresh);

    // Later operations in the batch, and refunds, follow the same rule.
    const charged = await limiter.consume(GOOD);
    expect(charged).toMatchObject({ allowed: true, source: 'store' });
    const before = await limiter.peek(GOOD);
    const [refund] = await Promise.all([limiter.refund(GOOD), limiter.consume(BAD)]);
    if (refund.source !== 'store') expect(await limiter.peek(GOOD)).toEqual(before);
  });
});

it('a large coalesced batch (more keys than one Lua unpack takes) is checked and decided', async () => {
  const { client } = clients.find((c) => c.name === 'redis')!;
  const now = Date.UTC(2026, 5, 1, 12);
  const store = new RedisStore({ client, time: 'client', maxBatchSize: 5000 });
  const limits = [
    { name: 'a', qps: 10 },
    { name: 'b', perMinute: 100 },
  ];
  const limiter = createLimiter({ limits, store, clock: () => now, prefix: `bf${process.pid}-${counter++}`, ...STORE_SEMANTICS });
  const decisions = await Promise.all(Array.from({ length: 5000 }, (_, i) => limiter.consume(`user-${i}`)));
  expect(decisions.every((d) => d.allowed && d.source === 'store')).toBe(true);
});
