import { RedisClusterProcess } from '@tollgate/testing';
import calculateSlot from 'cluster-key-slot';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { createLimiter, type Decision, RedisStore } from '../../src/index.js';
import { CLIENT_KINDS, connectCluster, type TestClient } from '../helpers/redis-clients.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const SLOT = 4242;

/** Identities whose keys all hash to `slot`: the store sends them as one script call. */
function identitiesOfSlot(slot: number, count: number): string[] {
  const found: string[] = [];
  for (let i = 0; found.length < count; i++) if (calculateSlot(`id-${i}`) === slot) found.push(`id-${i}`);
  return found;
}

interface NodeInfo {
  id: string;
  port: number;
  redis: Redis;
}

/** Moves `slot` from its master to another one key at a time, slowly, as `redis-cli --cluster reshard` does. */
async function migrateSlot(cluster: RedisClusterProcess, slot: number, pauseMs: number): Promise<void> {
  const nodes: NodeInfo[] = await Promise.all(
    cluster.nodes.map(async ({ port }) => {
      const redis = new Redis(port, '127.0.0.1');
      return { id: String(await redis.cluster('MYID')), port, redis };
    }),
  );
  try {
    const ranges = await nodes[0]!.redis.cluster('SLOTS');
    const ownerId = ranges.find(([from, to]) => slot >= from && slot <= to)![2]![2];
    const source = nodes.find((node) => node.id === ownerId)!;
    const target = nodes.find((node) => node.id !== ownerId)!;
    await target.redis.cluster('SETSLOT', slot, 'IMPORTING', source.id);
    await source.redis.cluster('SETSLOT', slot, 'MIGRATING', target.id);
    for (;;) {
      const keys = (await source.redis.cluster('GETKEYSINSLOT', slot, 1)) as string[];
      if (keys.length === 0) break;
      await source.redis.migrate('127.0.0.1', target.port, '', 0, 5000, 'KEYS', ...keys);
      await sleep(pauseMs);
    }
    for (const node of nodes) await node.redis.cluster('SETSLOT', slot, 'NODE', target.id);
  } finally {
    for (const node of nodes) node.redis.disconnect();
  }
}

let cluster: RedisClusterProcess | undefined;
let connected: TestClient | undefined;
afterEach(async () => {
  await connected?.close();
  await cluster?.stop();
});

describe.each(CLIENT_KINDS)('%s: a slot migrated under load', (kind) => {
  it('answers every request from Redis, and counts each admitted one once', async () => {
    cluster = await RedisClusterProcess.start(3);
    connected = await connectCluster(kind, cluster.startupNodes);
    // Two limits: while the slot moves key by key, one decision's keys may sit on two nodes (TRYAGAIN).
    const rule = {
      limits: [
        { name: 'hour', algorithm: 'fixed-window', limit: 1_000_000, window: '1h' },
        { name: 'day', algorithm: 'fixed-window', limit: 1_000_000, window: '1d' },
      ],
      prefix: `mig${process.pid}`,
      denyCache: false,
    } as const;
    const store = new RedisStore({ client: connected.client });
    const limiter = createLimiter({ ...rule, store, timeout: 5000, onStoreError: 'closed' });
    const identities = identitiesOfSlot(SLOT, 12);
    // Every identity holds a key before the migration starts, so the slot is half-moved for a while.
    for (const decision of await Promise.all(identities.map((id) => limiter.consume(id)))) expect(decision.source).toBe('store');

    const answers: { id: string; decision: Decision }[] = [];
    const inFlight: Promise<void>[] = [];
    const timer = setInterval(() => {
      for (const id of identities) inFlight.push(limiter.consume(id).then((decision) => void answers.push({ id, decision })));
    }, 10);
    try {
      await sleep(100);
      await migrateSlot(cluster, SLOT, 40);
      await sleep(200);
    } finally {
      clearInterval(timer);
    }
    await Promise.all(inFlight);

    expect(answers.length).toBeGreaterThan(200);
    expect(answers.filter(({ decision }) => decision.source !== 'store')).toEqual([]);
    const peeks = await Promise.all(['never-used', ...identities].map((id) => limiter.peek(id)));
    const fresh = peeks[0]!.remaining;
    identities.forEach((id, i) => {
      const admitted = answers.filter((answer) => answer.id === id && answer.decision.allowed).length + 1;
      expect(fresh - peeks[i + 1]!.remaining, id).toBe(admitted);
    });
  });
});
