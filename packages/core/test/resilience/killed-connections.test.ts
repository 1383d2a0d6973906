import { killClientConnections } from '@tollgate/testing';
import { describe, expect, it } from 'vitest';
import { createLimiter, RedisStore } from '../../src/index.js';
import { startTopologies } from '../helpers/per-file-servers.js';
import { CLIENT_KINDS } from '../helpers/redis-clients.js';

const TOPOLOGIES = startTopologies();
let counter = 0;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.each(CLIENT_KINDS)("%s: a node's connections killed while idle", (kind) => {
  it.each(TOPOLOGIES)('on $name, the next decisions are Redis', async (topology) => {
    const connected = await topology.connect(kind);
    try {
      const limiter = createLimiter({
        qps: 1000,
        store: new RedisStore({ client: connected.client }),
        prefix: `killed${process.pid}-${counter++}`,
        timeout: 5000,
        onStoreError: 'open',
        breaker: false,
      });
      const keys = Array.from({ length: 30 }, (_, i) => `key-${i}`);
      expect((await Promise.all(keys.map((key) => limiter.consume(key)))).map((d) => d.source)).toEqual(keys.map(() => 'store'));
      // One node: on a Cluster the others stay connected, and the client must connect to it again by itself.
      expect(await killClientConnections([topology.servers()[0]!.port])).toBeGreaterThan(0);
      // Long enough for every client to notice; nothing was in flight, so nothing may be lost.
      await sleep(100);
      const after = await Promise.all(keys.map((key) => limiter.consume(key)));
      expect(after.map((d) => d.source)).toEqual(keys.map(() => 'store'));
    } finally {
      await connected.close();
    }
  });
});

describe.each(['ioredis', 'ioredis6', 'iovalkey'] as const)("%s: every node's connections of a Cluster killed", (kind) => {
  it('leaves the Cluster ready: each node connection reconnects by itself, and the next decisions are Redis', async () => {
    const cluster = TOPOLOGIES.find((topology) => topology.name === 'cluster')!;
    const connected = await cluster.connect(kind);
    const client = connected.client as { status: string; on(event: 'close', listener: () => void): unknown };
    try {
      const limiter = createLimiter({
        qps: 1000,
        store: new RedisStore({ client }),
        prefix: `killed-all${process.pid}-${counter++}`,
        timeout: 5000,
        onStoreError: 'open',
        breaker: false,
      });
      const keys = Array.from({ length: 30 }, (_, i) => `key-${i}`);
      expect((await Promise.all(keys.map((key) => limiter.consume(key)))).map((d) => d.source)).toEqual(keys.map(() => 'store'));
      let closes = 0;
      client.on('close', () => closes++);
      expect(await killClientConnections(cluster.servers().map((server) => server.port))).toBeGreaterThanOrEqual(3);
      const after = await Promise.all(keys.map((key) => limiter.consume(key)));
      expect(after.map((d) => d.source)).toEqual(keys.map(() => 'store'));
      // Left to itself, an ioredis Cluster that lost every node closes, and connects again only after clusterRetryStrategy's delay.
      expect([closes, client.status]).toEqual([0, 'ready']);
    } finally {
      await connected.close();
    }
  });
});
