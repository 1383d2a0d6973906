import { Redis as Ioredis, Cluster as IoredisCluster } from 'ioredis';
import { Redis as Ioredis6, Cluster as Ioredis6Cluster } from 'ioredis6';
import { Redis as Valkey, Cluster as ValkeyCluster } from 'iovalkey';
import { createClient, createCluster } from 'redis';
import { createClient as createClient4, createCluster as createCluster4 } from 'redis4';
import { createClient as createClient6, createCluster as createCluster6 } from 'redis6';

/** Every client library the RedisStore supports, as the tests name them. */
export const CLIENT_KINDS = ['ioredis', 'ioredis6', 'iovalkey', 'node-redis', 'node-redis4', 'node-redis6'] as const;
export type ClientKind = (typeof CLIENT_KINDS)[number];

/** The client the shared suites (conformance, exactness) run with: `TOLLGATE_REDIS_CLIENT`, default ioredis. */
export const SUITE_CLIENT: ClientKind = clientKind(process.env.TOLLGATE_REDIS_CLIENT ?? 'ioredis');

export function clientKind(name: string): ClientKind {
  if (!(CLIENT_KINDS as readonly string[]).includes(name))
    throw new Error(`unknown Redis client ${name}: one of ${CLIENT_KINDS.join(', ')}`);
  return name as ClientKind;
}

/** A connected client of one library, and how to let it go. */
export interface TestClient {
  kind: ClientKind;
  client: object;
  close(): Promise<void>;
}

type Address = { host: string; port: number };

export async function connectClient(kind: ClientKind, url: string): Promise<TestClient> {
  switch (kind) {
    case 'ioredis':
      return ioredisLike(kind, new Ioredis(url));
    case 'ioredis6':
      return ioredisLike(kind, new Ioredis6(url));
    case 'iovalkey':
      return ioredisLike(kind, new Valkey(url));
    case 'node-redis':
      return nodeRedis(kind, createClient({ url }));
    case 'node-redis4':
      return nodeRedis(kind, createClient4({ url }));
    case 'node-redis6':
      return nodeRedis(kind, createClient6({ url }));
  }
}

export async function connectCluster(kind: ClientKind, nodes: Address[]): Promise<TestClient> {
  const redisOptions = { maxRetriesPerRequest: 1 };
  const rootNodes = nodes.map(({ host, port }) => ({ url: `redis://${host}:${port}` }));
  switch (kind) {
    case 'ioredis':
      return ioredisLike(kind, new IoredisCluster(nodes, { redisOptions }));
    case 'ioredis6':
      return ioredisLike(kind, new Ioredis6Cluster(nodes, { redisOptions }));
    case 'iovalkey':
      return ioredisLike(kind, new ValkeyCluster(nodes, { redisOptions }));
    case 'node-redis':
      return nodeRedis(kind, createCluster({ rootNodes }));
    case 'node-redis4':
      return nodeRedis(kind, createCluster4({ rootNodes }));
    case 'node-redis6':
      return nodeRedis(kind, createCluster6({ rootNodes }));
  }
}

interface IoredisLike {
  on(event: 'error', listener: () => void): unknown;
  quit(): Promise<unknown>;
  disconnect(): void;
}

function ioredisLike(kind: ClientKind, client: IoredisLike): TestClient {
  client.on('error', () => {});
  return {
    kind,
    client,
    close: async () => {
      await client.quit().catch(() => client.disconnect());
    },
  };
}

interface NodeRedisLike {
  on(event: 'error', listener: () => void): unknown;
  connect(): Promise<unknown>;
  disconnect?(): Promise<unknown>;
  quit?(): Promise<unknown>;
}

async function nodeRedis(kind: ClientKind, client: NodeRedisLike): Promise<TestClient> {
  client.on('error', () => {});
  await client.connect();
  return {
    kind,
    client,
    close: async () => {
      await (client.disconnect ?? client.quit)!.call(client).catch(() => {});
    },
  };
}
