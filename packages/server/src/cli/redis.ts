import { invalidOption, RedisStore, refuseUnknownFields } from '@tollgate/core';

/** How the command reaches Redis: a URL, or the URLs of Cluster nodes, with the client library to use. */
export interface RedisConnection {
  /** `redis://[user:password@]host:port[/db]` (`rediss://` for TLS). */
  url?: string;
  /** The URLs of some Cluster nodes (the rest are discovered), in place of `url`. */
  cluster?: string[];
  /** Default `ioredis`; `iovalkey` and `node-redis` (the `redis` package) must be installed beside the server. */
  client?: 'ioredis' | 'iovalkey' | 'node-redis';
  /** Whose clock decides: Redis `TIME` (`server`, default) or this process's (`client`). */
  time?: 'server' | 'client';
}

export const REDIS_FIELDS = { url: true, cluster: true, client: true, time: true } as const satisfies Record<keyof RedisConnection, true>;

export interface ConnectedRedis {
  store: RedisStore;
  ready(): boolean;
  quit(): Promise<void>;
}

/** Most time the command waits for Redis before it starts anyway (not ready until Redis answers). */
const CONNECT_WAIT_MS = 5000;

export async function connectRedis(given: string | RedisConnection, at = 'redis'): Promise<ConnectedRedis> {
  const connection = typeof given === 'string' ? { url: given } : given;
  if (typeof connection !== 'object' || connection === null)
    throw invalidOption(at, 'must be a URL or { url | cluster, client, time }', given);
  refuseUnknownFields(connection, REDIS_FIELDS, `${at}.`);
  const { url, cluster, client = 'ioredis', time = 'server' } = connection;
  if ((url === undefined) === (cluster === undefined))
    throw invalidOption(`${at}.url`, 'or cluster is required (exactly one of them)', url);
  if (cluster !== undefined && (!Array.isArray(cluster) || cluster.length === 0 || !cluster.every((node) => typeof node === 'string'))) {
    throw invalidOption(`${at}.cluster`, 'must be a non-empty list of node URLs', cluster);
  }
  if (time !== 'server' && time !== 'client') throw invalidOption(`${at}.time`, "must be 'server' or 'client'", time);
  const nodes = cluster ?? [url!];
  const connected =
    client === 'node-redis' ? await nodeRedis(nodes, cluster !== undefined) : await ioredisLike(client, nodes, cluster !== undefined, at);
  return { ...connected, store: new RedisStore({ client: connected.client as never, time }) };
}

interface Connected {
  client: unknown;
  ready(): boolean;
  quit(): Promise<void>;
}

/** ioredis or iovalkey (the same API): commands fail at once while disconnected, so the failure mode answers without a queue building up. */
async function ioredisLike(library: string, nodes: string[], isCluster: boolean, at: string): Promise<Connected> {
  if (library !== 'ioredis' && library !== 'iovalkey')
    throw invalidOption(`${at}.client`, "must be 'ioredis', 'iovalkey' or 'node-redis'", library);
  const module = (await importClient(library)) as IoredisModule;
  const client = isCluster
    ? new module.Cluster(nodes, { enableOfflineQueue: false, redisOptions: { enableOfflineQueue: false } })
    : new module.Redis(nodes[0]!, { enableOfflineQueue: false });
  client.on('error', () => {
    // Reconnection is the client's; the limiters' failure mode answers meanwhile, and readiness says so.
  });
  await new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, CONNECT_WAIT_MS);
    client.once('ready', () => {
      clearTimeout(timer);
      resolve();
    });
  });
  return {
    client,
    ready: () => client.status === 'ready',
    quit: async () => {
      await client.quit().catch(() => client.disconnect());
    },
  };
}

async function nodeRedis(nodes: string[], isCluster: boolean): Promise<Connected> {
  const module = (await importClient('redis')) as NodeRedisModule;
  const client = isCluster
    ? module.createCluster({ rootNodes: nodes.map((url) => ({ url })), defaults: { disableOfflineQueue: true } })
    : module.createClient({ url: nodes[0], disableOfflineQueue: true });
  client.on('error', () => {
    // As above: node-redis reconnects on its own.
  });
  await Promise.race([client.connect().catch(() => {}), new Promise((resolve) => setTimeout(resolve, CONNECT_WAIT_MS))]);
  return {
    client,
    ready: () => client.isReady ?? true,
    quit: async () => {
      await client.quit().catch(() => {});
    },
  };
}

async function importClient(name: string): Promise<unknown> {
  try {
    return await import(name);
  } catch (error) {
    throw new Error(`the Redis client library "${name}" is not installed beside @tollgate/server (npm install ${name})`, { cause: error });
  }
}

interface IoredisClient {
  status: string;
  on(event: 'error', listener: (error: Error) => void): unknown;
  once(event: 'ready', listener: () => void): unknown;
  quit(): Promise<unknown>;
  disconnect(): void;
}

interface IoredisModule {
  Redis: new (url: string, options: object) => IoredisClient;
  Cluster: new (nodes: string[], options: object) => IoredisClient;
}

interface NodeRedisClient {
  isReady?: boolean;
  on(event: 'error', listener: (error: Error) => void): unknown;
  connect(): Promise<unknown>;
  quit(): Promise<unknown>;
}

interface NodeRedisModule {
  createClient(options: object): NodeRedisClient;
  createCluster(options: object): NodeRedisClient;
}
