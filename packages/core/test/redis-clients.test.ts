import type { RedisProcess } from '@tollgate/testing';
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { createLimiter, type Limiter, RedisStore } from '../src/index.js';
import { commandCalls, driverCalls } from './helpers/command-stats.js';
import { startTopologies } from './helpers/per-file-servers.js';
import { CLIENT_KINDS } from './helpers/redis-clients.js';
import { STORE_SEMANTICS } from './helpers/stores.js';

let counter = 0;

const TOPOLOGIES = startTopologies();

/** Runs `command` on every server directly, and sums the integer replies. */
async function onEveryServer(servers: RedisProcess[], command: (redis: Redis) => Promise<number>): Promise<number> {
  let sum = 0;
  for (const server of servers) {
    const redis = new Redis(server.port, '127.0.0.1');
    try {
      sum += await command(redis);
    } finally {
      redis.disconnect();
    }
  }
  return sum;
}

const commandCallsOn = (command: string) => (redis: Redis) => redis.info('commandstats').then((stats) => commandCalls(stats, command));
const scriptCalls = (redis: Redis) => redis.info('commandstats').then(driverCalls);

/** How many of `requests` concurrent consumes on each of `keys` were admitted, per key. */
async function admittedPerKey(limiter: Limiter, keys: string[], requests: number): Promise<number[]> {
  const decisions = await Promise.all(keys.map((key) => Promise.all(Array.from({ length: requests }, () => limiter.consume(key)))));
  for (const perKey of decisions) for (const decision of perKey) expect(decision.source).toBe('store');
  return decisions.map((perKey) => perKey.filter((decision) => decision.allowed).length);
}

function burstLimiter(store: RedisStore, overrides: object = {}): Limiter {
  return createLimiter({
    algorithm: 'gcra',
    rate: 1,
    period: '1h',
    burst: 20,
    store,
    prefix: `clients${process.pid}-${counter++}`,
    ...STORE_SEMANTICS,
    ...overrides,
  });
}

const KEYS = ['alice', 'bob', 'carol', 'dave', 'erin'];

describe.each(CLIENT_KINDS)('RedisStore with %s', (kind) => {
  describe.each(TOPOLOGIES)('on $name', (topology) => {
    it('admits exactly the burst per identity, in one script call per batch', async () => {
      const connected = await topology.connect(kind);
      try {
        const store = new RedisStore({ client: connected.client });
        const limiter = burstLimiter(store);
        // Every node loads the library first, so the count below holds no reload.
        await Promise.all(['load-a', 'load-b', 'load-c', 'load-d', 'load-e', 'load-f'].map((key) => limiter.consume(key)));
        const callsBefore = await onEveryServer(topology.servers(), scriptCalls);
        expect(await admittedPerKey(limiter, KEYS, 30)).toEqual(KEYS.map(() => 20));
        const calls = (await onEveryServer(topology.servers(), scriptCalls)) - callsBefore;
        // Every one an FCALL of the library: none fell back to the script.
        expect(await onEveryServer(topology.servers(), commandCallsOn('evalsha'))).toBe(0);
        // 150 operations: batches of up to 128 on one node; one batch per identity (slot) on a cluster.
        expect(calls).toBe(topology.name === 'cluster' ? KEYS.length : 2);
      } finally {
        await connected.close();
      }
    });

    it('recovers from FUNCTION FLUSH with one FUNCTION LOAD', async () => {
      const connected = await topology.connect(kind);
      try {
        const limiter = burstLimiter(new RedisStore({ client: connected.client }));
        expect(await limiter.consume('frank')).toMatchObject({ allowed: true, remaining: 19, source: 'store' });
        await onEveryServer(topology.servers(), (redis) => redis.function('FLUSH').then(() => 0));
        const loadsBefore = await onEveryServer(topology.servers(), commandCallsOn('function|load'));
        const evalsBefore = await onEveryServer(topology.servers(), commandCallsOn('eval'));
        expect(await limiter.consume('frank')).toMatchObject({ allowed: true, remaining: 18, source: 'store' });
        // node-redis clusters load it on every master: they follow an ASK to a node the store never names.
        const loadsPerReload = kind.startsWith('node-redis') && topology.name === 'cluster' ? topology.servers().length : 1;
        expect(await onEveryServer(topology.servers(), commandCallsOn('function|load'))).toBe(loadsBefore + loadsPerReload);
        expect(await onEveryServer(topology.servers(), commandCallsOn('eval'))).toBe(evalsBefore);
      } finally {
        await connected.close();
      }
    });

    it('comes back exact after Redis restarts (no data, no script)', async () => {
      const connected = await topology.connect(kind);
      try {
        const store = new RedisStore({ client: connected.client });
        const limiter = burstLimiter(store);
        expect(await admittedPerKey(limiter, KEYS, 25)).toEqual(KEYS.map(() => 20));
        for (const server of topology.servers()) await server.kill();
        await Promise.all(topology.servers().map((server) => server.launch()));
        const probe = burstLimiter(store, { timeout: 500 });
        // Every identity's node must answer again (a Cluster restarts node by node), before counting.
        const storeAnswers = async () =>
          (await Promise.all(KEYS.map((key) => probe.peek(key)))).every((decision) => decision.source === 'store');
        await eventually(storeAnswers, 20_000);
        // The restarted servers lost the counts: every identity gets its whole burst again.
        expect(await admittedPerKey(limiter, KEYS, 25)).toEqual(KEYS.map(() => 20));
      } finally {
        await connected.close();
      }
    });
  });
});

describe('RedisStore options', () => {
  it.each([{}, null, { sendCommand: 1 }, 'redis://localhost'])('refuses %j as a client, naming the field', (client) => {
    expect(() => new RedisStore({ client: client as object })).toThrow(
      expect.objectContaining({ code: 'ERR_TOLLGATE_INVALID_OPTION', field: 'client' }),
    );
  });
});

async function eventually(condition: () => Promise<boolean>, withinMs: number): Promise<void> {
  const deadline = Date.now() + withinMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${withinMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
