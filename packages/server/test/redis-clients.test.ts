/**
 * The Redis connections `tollgate.yaml` describes: a URL with each supported client library, and a
 * Cluster; each server admits exactly the limit, with calls sent all at once.
 */
import { RedisClusterProcess, RedisProcess } from '@tollgate/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ConnectedRedis, connectRedis, type RedisConnection } from '../src/cli/redis.js';
import { createServer } from '../src/index.js';
import { memoryLogger } from './helpers/server.js';

let single: RedisProcess;
let cluster: RedisClusterProcess;

beforeAll(async () => {
  [single, cluster] = await Promise.all([RedisProcess.start(), RedisClusterProcess.start(3)]);
});
afterAll(async () => {
  await Promise.all([single?.stop(), cluster?.stop()]);
});

const connections: [string, () => RedisConnection][] = [
  ['ioredis', () => ({ url: single.url })],
  ['iovalkey', () => ({ url: single.url, client: 'iovalkey' })],
  ['node-redis', () => ({ url: single.url, client: 'node-redis' })],
  ['an ioredis Cluster', () => ({ cluster: cluster.nodes.map((node) => node.url) })],
  ['a node-redis Cluster', () => ({ cluster: cluster.nodes.map((node) => node.url), client: 'node-redis' })],
];

describe.each(connections)('redis with %s', (name, connection) => {
  let redis: ConnectedRedis;
  afterAll(() => redis?.quit());

  it('is ready and admits exactly the limit', async () => {
    redis = await connectRedis(connection());
    expect(redis.ready()).toBe(true);
    const server = await createServer({
      config: { domain: 'd', descriptors: [{ key: 'user', rate_limit: { unit: 'minute', requests_per_unit: 7 } }] },
      store: redis.store,
      storeReady: redis.ready,
      prefix: `clients-${name.replace(/\W/g, '')}-${Date.now()}`,
      defaults: { timeout: 5000, onStoreError: 'closed' },
      grpc: false,
      http: false,
      logger: memoryLogger(),
    });
    try {
      const calls = Array.from({ length: 20 }, (_, i) =>
        server.service.shouldRateLimit({ domain: 'd', descriptors: [{ entries: [{ key: 'user', value: i % 2 === 0 ? 'a' : 'b' }] }] }),
      );
      const codes = (await Promise.all(calls)).map((response) => response.overall_code);
      expect(codes.filter((code) => code === 'OK')).toHaveLength(14);
      expect(server.ready).toBe(true);
    } finally {
      await server.close();
    }
  });
});

it('refuses a connection it cannot make, naming the field', async () => {
  await expect(connectRedis({ url: 'redis://x', cluster: ['redis://y'] })).rejects.toMatchObject({ field: 'redis.url' });
  await expect(connectRedis({ url: 'redis://x', client: 'jedis' as never })).rejects.toMatchObject({ field: 'redis.client' });
  await expect(connectRedis({ url: 'redis://x', tiem: 'server' } as never)).rejects.toMatchObject({
    field: 'redis.tiem',
    message: expect.stringContaining('did you mean time?'),
  });
});
