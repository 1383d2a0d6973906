// The share of decisions answered by the failure mode while every client connection of every
// Redis node is killed again and again (CLIENT KILL, as a proxy or network fault would), for an
// ioredis Cluster, a node-redis Cluster and a single Redis reached with ioredis, in the same run.
// Each limiter keeps its defaults (breaker, 100 ms timeout) with onStoreError: 'open'. Decisions
// are offered at a steady rate over 1000 identities (a batch every 5 ms, whether earlier ones were
// answered or not), so the share of decisions is the share of time the failure mode answered.
// Usage: pnpm bench:connection-kills [--seconds=5] [--kill-every=250] [--rate=4000] [--runs=3] [--only=<client substring>] [--no-breaker]
import { createLimiter, type Decision, RedisStore } from '@tollgate/core';
import { killClientConnections, RedisClusterProcess, RedisProcess } from '@tollgate/testing';
import { Cluster, Redis } from 'ioredis';
import { createCluster } from 'redis';

const arg = (name: string, fallback: number) => Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback);
const SECONDS = arg('seconds', 5);
const KILL_EVERY_MS = arg('kill-every', 250);
const RATE = arg('rate', 4000);
const BATCH_EVERY_MS = 5;
const BATCH = Math.max(1, Math.round((RATE * BATCH_EVERY_MS) / 1000));
const RUNS = arg('runs', 3);
/** `--no-breaker`: every call goes to the store, showing what the client itself loses. */
const WITH_BREAKER = !process.argv.includes('--no-breaker');

interface Target {
  name: string;
  connect(): Promise<{ client: object; close(): Promise<unknown> }>;
  ports(): number[];
}

interface Tally {
  decisions: number;
  bySource: Record<Decision['source'], number>;
  kills: number;
}

async function probe(target: Target, run: number): Promise<Tally> {
  const { client, close } = await target.connect();
  const limiter = createLimiter({
    qps: 1_000_000,
    store: new RedisStore({ client }),
    prefix: `kills-${run}-${target.name.replace(/\W/g, '')}`,
    onStoreError: 'open',
    ...(WITH_BREAKER ? {} : { breaker: false as const }),
    logger: { warn: () => {}, error: () => {} },
  });
  const tally: Tally = { decisions: 0, bySource: { store: 0, lease: 0, cache: 0, fallback: 0, policy: 0 }, kills: 0 };
  const killer = setInterval(() => {
    killClientConnections(target.ports()).then(
      () => tally.kills++,
      () => {},
    );
  }, KILL_EVERY_MS);
  const pending: Promise<void>[] = [];
  let offered = 0;
  const offer = setInterval(() => {
    for (let i = 0; i < BATCH; i++, offered++) {
      pending.push(
        limiter.consume(`id-${offered % 1000}`).then((decision) => {
          tally.decisions++;
          tally.bySource[decision.source]++;
        }),
      );
    }
  }, BATCH_EVERY_MS);
  try {
    await new Promise((resolve) => setTimeout(resolve, SECONDS * 1000));
    clearInterval(offer);
    await Promise.all(pending);
  } finally {
    clearInterval(offer);
    clearInterval(killer);
    await close();
  }
  return tally;
}

const percent = (part: number, whole: number) => `${((100 * part) / Math.max(1, whole)).toFixed(1)} %`;

const single = await RedisProcess.start();
const cluster = await RedisClusterProcess.start(3);
const clusterPorts = () => cluster.nodes.map((node) => node.port);
const targets: Target[] = [
  {
    name: 'ioredis Cluster',
    connect: async () => {
      const client = new Cluster(cluster.startupNodes);
      client.on('error', () => {});
      return { client, close: () => client.quit().catch(() => client.disconnect()) };
    },
    ports: clusterPorts,
  },
  {
    name: 'node-redis Cluster',
    connect: async () => {
      const client = createCluster({ rootNodes: cluster.startupNodes.map(({ host, port }) => ({ url: `redis://${host}:${port}` })) });
      client.on('error', () => {});
      await client.connect();
      return { client, close: () => client.close().catch(() => {}) };
    },
    ports: clusterPorts,
  },
  {
    name: 'single Redis (ioredis)',
    connect: async () => {
      const client = new Redis(single.url);
      client.on('error', () => {});
      return { client, close: () => client.quit().catch(() => client.disconnect()) };
    },
    ports: () => [single.port],
  },
];

const only = process.argv.find((a) => a.startsWith('--only='))?.split('=')[1];
console.log(
  `${SECONDS} s per run, every client connection killed every ${KILL_EVERY_MS} ms, ${BATCH} decisions offered every ${BATCH_EVERY_MS} ms\n`,
);
console.log('| client | run | decisions | kills | failure mode (fallback + policy) |');
console.log('|---|---|---|---|---|');
try {
  for (let run = 1; run <= RUNS; run++) {
    for (const target of targets.filter((candidate) => only === undefined || candidate.name.includes(only))) {
      const tally = await probe(target, run);
      const failureMode = tally.bySource.fallback + tally.bySource.policy;
      console.log(`| ${target.name} | ${run} | ${tally.decisions} | ${tally.kills} | ${percent(failureMode, tally.decisions)} |`);
    }
  }
} finally {
  await Promise.all([single.stop(), cluster.stop()]);
}
